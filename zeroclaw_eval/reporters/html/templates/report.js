"use strict";
(function () {
  var runs = Array.prototype.slice.call(document.querySelectorAll("div.cases.folded"));
  var onlyFailures = false;
  // An expected failure (xfail) fails no gate: "failures only" hides it with the passes.
  function hiddenByFilter(item) {
    var status = item.dataset.status;
    return onlyFailures && (status === "passed" || status === "xfailed");
  }
  // Runs of cases that start closed come folded in a comment, which the parser skips
  // cheaply (10,000 cases as markup took seconds to load): unfolding one parses it.
  function unfold(run) {
    var index = runs.indexOf(run);
    if (index < 0) { return; }
    runs.splice(index, 1);
    if (near) { near.unobserve(run); }
    var comment = run.firstChild;
    while (comment && comment.nodeType !== Node.COMMENT_NODE) { comment = comment.nextSibling; }
    if (!comment) { return; }
    var parsed = document.createElement("template");
    parsed.innerHTML = comment.data;
    run.replaceChild(parsed.content, comment);
    run.classList.remove("folded");
    run.querySelectorAll("details.case").forEach(function (item) { item.hidden = hiddenByFilter(item); });
  }
  // A run near the screen unfolds at once; the rest, a run a task once the page has
  // loaded, so that finding in the page sees every case.
  var near = "IntersectionObserver" in window && new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) { unfold(entry.target); }
    });
  }, { rootMargin: "1500px 0px" });
  runs.forEach(function (run) { if (near) { near.observe(run); } });
  function unfoldNext() {
    if (runs.length) { unfold(runs[0]); setTimeout(unfoldNext, 0); }
  }
  window.addEventListener("load", function () { setTimeout(unfoldNext, 0); });
  // A closed case's body waits in a <template> (inert, out of the document): it goes
  // into the case the first time the case opens.
  function fill(item) {
    var template = item.querySelector(":scope > template");
    if (template) { item.replaceChild(template.content, template); }
  }
  // Toggle does not bubble: caught on its way down, once for every case, however opened.
  document.addEventListener("toggle", function (event) {
    var item = event.target;
    if (item.open && item.classList.contains("case")) { fill(item); }
  }, true);
  function cases() {
    return Array.prototype.slice.call(document.querySelectorAll("details.case"));
  }
  function setOpen(open) {
    if (open) { runs.slice().forEach(unfold); }
    cases().forEach(function (item) {
      if (open) { fill(item); }
      item.open = open;
    });
  }
  function showOnlyFailures(only) {
    onlyFailures = only;
    cases().forEach(function (item) { item.hidden = hiddenByFilter(item); });
    // A run holds only cases that start closed, which are those the filter hides.
    document.querySelectorAll("div.cases").forEach(function (run) { run.hidden = only; });
  }
  document.getElementById("expand-all").addEventListener("click", function () { setOpen(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setOpen(false); });
  document.getElementById("failures-only").addEventListener("change", function (event) {
    showOnlyFailures(event.target.checked);
  });
  // An id of a folded or closed case is not in the document yet: case-7 and its rows
  // (case-7-L12) are in the run that holds case 7, then in case-7's template.
  function find(id) {
    var found = document.getElementById(id);
    var number = /^case-(\d+)(?:-|$)/.exec(id);
    if (found || !number) { return found; }
    var wanted = Number(number[1]);
    runs.slice().forEach(function (run) {
      if (Number(run.dataset.first) <= wanted && wanted <= Number(run.dataset.last)) { unfold(run); }
    });
    var holder = document.getElementById("case-" + number[1]);
    var template = holder && holder.querySelector(":scope > template");
    if (template && template.content.getElementById(id)) { fill(holder); }
    return document.getElementById(id);
  }
  // Following a link to a case or a source line opens the case that holds it.
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && find(id);
    if (!target) { return; }
    var holder = target.closest("details.case");
    if (holder) { holder.open = true; holder.hidden = false; }
    var run = target.closest("div.cases");
    if (run) { run.hidden = false; }
    var source = target.closest("details.source");
    if (source) { source.open = true; }
    target.scrollIntoView({ block: "center" });
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
