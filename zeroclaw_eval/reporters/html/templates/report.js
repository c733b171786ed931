"use strict";
(function () {
  var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  function setOpen(open) {
    cases.forEach(function (item) { item.open = open; });
  }
  function showOnlyFailures(only) {
    cases.forEach(function (item) {
      // An expected failure (xfail) fails no gate: it is hidden with the passes.
      var status = item.dataset.status;
      item.hidden = only && (status === "passed" || status === "xfailed");
    });
  }
  document.getElementById("expand-all").addEventListener("click", function () { setOpen(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setOpen(false); });
  document.getElementById("failures-only").addEventListener("change", function (event) {
    showOnlyFailures(event.target.checked);
  });
  // Following a link to a source line opens the case that holds it.
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    var holder = target.closest("details.case");
    if (holder) { holder.open = true; holder.hidden = false; }
    var source = target.closest("details.source");
    if (source) { source.open = true; }
    target.scrollIntoView({ block: "center" });
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
