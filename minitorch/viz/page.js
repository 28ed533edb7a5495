// The stepping page (minitorch/viz/page.py): shows step k of a reverse pass that minitorch ran.
// Every number and text comes from the page's data (replay-data); this script computes no gradient,
// it only shows what the data says for the current step. docs/explore.md has the DOM contract.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps;
  const body = document.body;
  const panel = document.getElementById("panel");
  const counter = document.getElementById("counter");
  const byStep = {};  // step -> keys of the tensors whose gradient is complete after it
  for (const [key, grad] of Object.entries(data.gradients)) {
    (byStep[grad.step] = byStep[grad.step] || []).push(key);
  }
  const moduleOf = {};  // op box id -> the cover that folds its module
  for (const cover of document.querySelectorAll(".cover")) {
    for (const op of cover.dataset.ops.split(" ").filter(Boolean)) moduleOf[op] = cover;
    cover.addEventListener("click", () => cover.classList.remove("folded"));
  }
  for (const module of document.querySelectorAll(".module.foldable")) {  // its label folds it again
    const cover = document.querySelector(`.cover[data-module="${CSS.escape(module.dataset.module)}"]`);
    module.addEventListener("click", () => cover.classList.add("folded"));
  }
  let current = 0;
  let lit = [];  // elements highlighted for the current step

  function showGradient(key, on) {
    const box = document.getElementById(key);
    if (!box) return;
    const grad = data.gradients[key];
    const lines = box.querySelectorAll("text.grad");
    box.classList.toggle("complete", on);
    box.dataset.grad = on ? grad.json : "";
    lines.forEach((line, i) => {
      line.textContent = on ? (grad.lines[i] || "") : (i === 0 ? "grad  \u00b7" : "");  // drops the old title too
      if (on) {
        const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
        title.textContent = grad.print;
        line.appendChild(title);
      }
    });
    const heat = box.querySelector("image.grad-heat");
    if (heat) heat.setAttribute("href", on && grad.heat ? grad.heat : "");
  }

  function markRan(k, on) {
    const op = document.getElementById(steps[k - 1].op);
    if (op) op.classList.toggle("ran", on);
  }

  function line(parent, css, text) {
    const element = document.createElement("div");
    element.className = css;
    element.textContent = text;
    parent.appendChild(element);
    return element;
  }

  function describe(k) {
    panel.replaceChildren();
    if (k === 0) {
      line(panel, "title", `Before the first step`);
      line(panel, "text", `The forward pass is recorded. Step runs the ${steps.length} backward ` +
        `functions one at a time, in the order the engine ran them; the target's gradient starts as 1.`);
      return;
    }
    const step = steps[k - 1];
    line(panel, "title", `Step ${k} of ${steps.length}: ${step.name}`);
    line(panel, "label", "its gradient formula (the op table)");
    line(panel, "formula", step.formula);
    line(panel, "label", "the gradient that arrived");
    for (const [name, text] of step.arrived) line(panel, "grad", `d${name} = ${text}`);
    line(panel, "label", "what it sends to each input");
    for (const [, name, text, count, note] of step.sent) {
      const sent = line(panel, "grad" + (count > 1 ? " accumulate" : ""),
        text ? `${name} ${count > 1 ? "+=" : "\u2190"} ${text}` : `${name}: ${note}`);
      if (text && note) line(sent, "note", note);
    }
    for (const key of step.complete) {
      const grad = data.gradients[key];
      if (grad) line(panel, "complete", `${grad.name}'s gradient is complete: ${grad.lines.join(" ").replace(/^grad +/, "")}`);
    }
    if (step.reference) {
      line(panel, "label", "minitorch's gradient function sends");
      for (const [name, text] of step.reference) line(panel, "grad", `${name} \u2190 ${text}`);
    }
    if (data.firstDifference === k) line(panel, "differs", "the first step where your gradients differ from minitorch's");
    if (step.note) line(panel, "differs", step.note);
  }

  function highlight(k) {
    for (const element of lit) element.classList.remove("current", "receiving", "flow", "active");
    for (const badge of document.querySelectorAll("text.badge")) badge.textContent = "";
    lit = [];
    if (k === 0) return;
    const step = steps[k - 1];
    const op = document.getElementById(step.op);
    if (op) {
      op.classList.add("current");
      lit.push(op);
      if (moduleOf[step.op]) {
        moduleOf[step.op].classList.add("active");
        lit.push(moduleOf[step.op]);
      }
      op.scrollIntoView({block: "nearest", inline: "nearest"});
    }
    for (const [key, , text, count] of step.sent) {
      if (!text) continue;
      const box = document.getElementById(key);
      if (!box) continue;
      box.classList.add("receiving");
      lit.push(box);
      if (count > 1) box.querySelector("text.badge").textContent = "+=";
      for (const edge of document.querySelectorAll(`path.edge[data-from="${key}"][data-to="${step.op}"]`)) {
        edge.classList.add("flow");
        lit.push(edge);
      }
    }
  }

  function go(k) {
    k = Math.max(0, Math.min(steps.length, k));
    while (current < k) {  // forward: each step's op has run, its completed gradients show
      current += 1;
      markRan(current, true);
      for (const key of byStep[current] || []) showGradient(key, true);
    }
    while (current > k) {  // back: undo the steps after k, last first
      for (const key of byStep[current] || []) showGradient(key, false);
      markRan(current, false);
      current -= 1;
    }
    body.dataset.step = String(current);
    counter.textContent = `step ${current} of ${steps.length}`;
    highlight(current);
    describe(current);
  }

  for (const key of byStep[0] || []) showGradient(key, true);  // the target's gradient, there from the start
  document.getElementById("step").addEventListener("click", () => go(current + 1));
  document.getElementById("back").addEventListener("click", () => go(current - 1));
  document.getElementById("run").addEventListener("click", () => go(steps.length));
  document.getElementById("reset").addEventListener("click", () => go(0));
  document.addEventListener("keydown", (event) => {
    const moves = {ArrowRight: current + 1, ArrowDown: current + 1, ArrowLeft: current - 1, ArrowUp: current - 1,
                   End: steps.length, Home: 0};
    if (event.key in moves) {
      event.preventDefault();
      go(moves[event.key]);
    }
  });
  go(0);
  body.dataset.ready = "true";
})();
