/* Every page: a kick-off shown in its competition's time zone (a <time data-local-time> with
 * the zone's offset at that moment in data-offset, in minutes) also gets the reader's own time,
 * from the browser's zone, when the reader's clock differs from the competition's then.
 * data-local-time="title" (a narrow place): the reader's time goes to the title instead.
 * Written in the page's language (<html lang>). */
(function () {
  "use strict";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  var lang = document.documentElement.lang || undefined;  // the page's language, as the rest of it
  var format = new Intl.DateTimeFormat(lang, {weekday: "short", day: "numeric", month: "short",
                                              hour: "2-digit", minute: "2-digit", hourCycle: "h23"});
  /* The names in the page's language, in the order the server writes its own time ("D j M, H:i":
   * "Sun 6 Dec, 03:30", "dom 6 dic, 03:30"), never the browser's locale order ("Sun, Dec 6"). */
  function sameOrder(when) {
    var part = {};
    format.formatToParts(when).forEach(function (p) { part[p.type] = p.value; });
    var weekday = (part.weekday || "").replace(/[.,]$/, "");
    var month = (part.month || "").replace(/[.,]$/, "");
    return weekday + " " + part.day + " " + month + ", " + part.hour + ":" + part.minute;
  }
  document.querySelectorAll("time[data-local-time]").forEach(function (el) {
    if (el.dataset.localDone) return;
    el.dataset.localDone = "1";
    var when = new Date(el.getAttribute("datetime"));
    if (isNaN(when)) return;
    if (String(-when.getTimezoneOffset()) === el.dataset.offset) return;
    var local = sameOrder(when);
    var text = local + " (" + zone + ")";
    if (el.dataset.localTime === "title") {
      el.title = (el.title ? el.title + " · " : "") + text;
      el.classList.add("has-local-time");
      return;
    }
    var mine = document.createElement("span");
    mine.className = "small muted local-time";
    mine.textContent = " · " + text;
    el.after(mine);
  });
})();
