/* The fixture's page: shows each player's check-in as it happens, and takes the players to the
 * table when the match kicks off (polls the match's feed every 2 s while it is not live).
 * The reader's own time beside the kick-off: static/js/local-time.js, on every page. */
(function () {
  "use strict";
  var card = document.getElementById("fixture-card");
  if (!card || !card.dataset.feed) return;
  var status = card.dataset.status;
  if (status !== "scheduled" && status !== "checked_in") return;
  function poll() {
    fetch(card.dataset.feed + "?after=1000000000", {credentials: "same-origin", cache: "no-store"})
      .then(function (r) { return r.json(); })
      .then(function (data) {
        var m = data.match;
        ["home", "away"].forEach(function (side) {
          var el = document.getElementById("checkin-" + side);
          if (el && m.checked_in[side] && m.computer_sides.indexOf(side) < 0) {
            el.textContent = card.dataset.checkedIn; el.className = "checkin in";
          }
        });
        if (m.status === "live") {
          if (card.dataset.yourSide) { window.location.href = card.dataset.board; return; }
          window.location.reload();
          return;
        }
        if (m.status !== status) { window.location.reload(); return; }
        setTimeout(poll, 2000);
      })
      .catch(function () { setTimeout(poll, 4000); });
  }
  setTimeout(poll, 2000);
})();
