"""Reading a page's form as a browser would send it untouched: every input's value, the checked
boxes, each select's selected option."""
from __future__ import annotations

from html.parser import HTMLParser


class _FormReader(HTMLParser):
    def __init__(self, action: str):
        super().__init__()
        self.action = action
        self.inside = False
        self.found = False
        self.fields: list[tuple[str, str]] = []
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._textarea: str | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and not self.found and (a.get("action") or "") == self.action:
            self.inside = self.found = True
        if not self.inside:
            return
        if tag == "input" and a.get("name"):
            kind = (a.get("type") or "text").lower()
            if kind in ("submit", "button", "reset", "file"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self.fields.append((a["name"], a.get("value", "on" if kind == "checkbox" else "") or ""))
        elif tag == "select" and a.get("name"):
            self._select, self._options = a["name"], []
        elif tag == "option" and self._select is not None:
            self._options.append((a.get("value", ""), "selected" in a))
        elif tag == "textarea" and a.get("name"):
            self._textarea, self._text = a["name"], ""

    def handle_data(self, data):
        if self._textarea is not None:
            self._text += data

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag == "select" and self._select is not None:
            chosen = [v for v, selected in self._options if selected] or [v for v, _s in self._options[:1]]
            self.fields.extend((self._select, v) for v in chosen)
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self.fields.append((self._textarea, self._text))
            self._textarea = None
        elif tag == "form":
            self.inside = False


def form_data(html: str, action: str) -> dict[str, str | list[str]]:
    """The fields the form posting to ``action`` sends as the page shows it (a name given
    twice: a list). Raises ``AssertionError`` when the page has no such form."""
    reader = _FormReader(action)
    reader.feed(html)
    assert reader.found, f"no form posting to {action}"
    data: dict[str, str | list[str]] = {}
    for name, value in reader.fields:
        if name in data:
            data[name] = [*([data[name]] if isinstance(data[name], str) else data[name]), value]
        else:
            data[name] = value
    data.pop("csrfmiddlewaretoken", None)
    return data
