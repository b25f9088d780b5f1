"""What a reader takes away: the iCalendar feeds (``calendars``, with their ``vtimezone``) and
the tables as CSV and XLSX (``tables``)."""
