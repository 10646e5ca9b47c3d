(function () {
  "use strict";
  // Model text only ever reaches the page through textContent; nothing here parses HTML.
  var $ = function (id) { return document.getElementById(id); };

  function tok(n) { return n === null || n === undefined ? "-" : n; }  // token counts: null is unknown

  function mk(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // ---------------------------------------------------------------- sortable leaderboard tables
  function sortTable(table, col, th) {
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var desc = !th.classList.contains("desc");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.classList.remove("asc", "desc"); });
    th.classList.add(desc ? "desc" : "asc");
    var key = function (tr) {
      var td = tr.cells[col];
      if (!td) return { n: null, s: "" };
      var v = td.getAttribute("data-v");
      return { n: v === null ? null : parseFloat(v), s: td.textContent };
    };
    rows.sort(function (a, b) {
      var ka = key(a), kb = key(b), r;
      if (ka.n !== null && kb.n !== null && !isNaN(ka.n) && !isNaN(kb.n)) r = ka.n - kb.n;
      else r = ka.s.localeCompare(kb.s, undefined, { numeric: true });
      return desc ? -r : r;
    });
    rows.forEach(function (tr) { tbody.appendChild(tr); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener("click", function () { sortTable(table, i, th); });
    });
  });

  // ---------------------------------------------------------------- item browser
  // The item index and the per-run text chunks are base64 gzip JSON (report/item_chunks.py), decoded here
  // with DecompressionStream: the index when the page opens, a run's texts only when they are needed.
  var indexEl = $("report-index");
  if (!indexEl) return;
  function unpack(b64) {
    var bin = atob(b64), n = bin.length, bytes = new Uint8Array(n);
    for (var i = 0; i < n; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  var D, RUNS, ITEMS, PAGE;
  // item: [run, key, subset, sample, rule, outcome, extracted, gold, nTurns, outTokens, position in run chunk]
  // chunk: {turns}; turns[position]: [[prompt, completion, extracted, outcome, method, detail, finish,
  // error, promptTok, complTok], ...]; prompt: a number into the shared chunk's prompts ([[role, text], ...]);
  // text: a string or parts (numbers into the shared chunk's strs) joined by blank lines. Once loaded, each
  // chunk carries the shared strs and prompts (c.strs, c.prompts) and the shared chunk itself (c.sh)
  var VERDICTS = ["correct", "incorrect", "unanswerable", "error", "unscored"];
  var CHUNKS = [], LOADED = [], sideWaiting = {};
  window.reasonevalChunk = function (i, b64) { var cb = sideWaiting[i]; delete sideWaiting[i]; if (cb) cb(b64); };
  var SHARED = null;
  function fetchChunk(key, src) {
    return new Promise(function (resolve, reject) {
      if (!src) { var el = $("chunk-" + key); resolve(el ? el.textContent : null); return; }
      sideWaiting[key] = resolve;
      var s = document.createElement("script");
      s.src = src.split("/").map(encodeURIComponent).join("/");
      s.onerror = function () {
        reject(new Error("cannot load " + src + ": keep the folder " + src.split("/")[0] + " beside this page"));
      };
      document.head.appendChild(s);
    }).then(function (b64) { return b64 === null ? null : unpack(b64); });
  }
  function shared() {
    if (!SHARED) {
      SHARED = fetchChunk("shared", D.sharedSrc || null).then(function (sh) { return sh || { strs: [], prompts: [] }; });
      SHARED.catch(function () { SHARED = null; });
    }
    return SHARED;
  }
  function chunk(ri) {
    if (!CHUNKS[ri]) {
      CHUNKS[ri] = Promise.all([shared(), fetchChunk(ri, D.chunkSrc ? D.chunkSrc[ri] : null)]).then(function (r) {
        var c = r[1] || { turns: [] };
        c.sh = r[0]; c.strs = r[0].strs; c.prompts = r[0].prompts;
        LOADED[ri] = c;
        return c;
      });
      CHUNKS[ri].catch(function () { CHUNKS[ri] = null; });
    }
    return CHUNKS[ri];
  }
  function promptOf(t, c) { return typeof t[0] === "number" ? c.prompts[t[0]] || [] : t[0] || []; }
  // body[data-busy] while texts are being loaded (tests and tools wait for it to go)
  var pending = 0;
  function busy(p) {
    pending++;
    document.body.setAttribute("data-busy", "1");
    var done = function () { if (--pending === 0) document.body.removeAttribute("data-busy"); };
    p.then(done, done);
    return p;
  }
  function turnsOf(it) { var c = LOADED[it[0]]; return c ? c.turns[it[10]] : null; }

  function txt(t, S) {
    if (t === null || t === undefined) return "";
    if (typeof t === "string") return t;
    var out = new Array(t.length);
    for (var i = 0; i < t.length; i++) out[i] = typeof t[i] === "number" ? S[t[i]] : t[i];
    return out.join("\n\n");
  }
  function short(s, n) { s = s === null || s === undefined ? "" : String(s); return s.length > n ? s.slice(0, n - 1) + "…" : s; }
  function outcomeOf(it) { return it[5] === null || it[5] === undefined ? "unscored" : it[5]; }

  var sel = { bench: $("f-bench"), run: $("f-run"), subset: $("f-subset"), rule: $("f-rule"), verdict: $("f-verdict") };
  var search = $("f-search");
  var state = { bench: "", run: "", subset: "", rule: "", verdict: "", q: "" };
  var filtered = [];
  var page = 0;
  var opened = new Set();

  function setOptions(select, values, labelOf) {
    var cur = select.value;
    while (select.options.length > 1) select.remove(1);
    values.forEach(function (v) {
      var o = document.createElement("option");
      o.value = v;
      o.textContent = labelOf ? labelOf(v) : v;
      select.appendChild(o);
    });
    select.value = values.indexOf(cur) >= 0 ? cur : "";
    return select.value;
  }

  function runOk(ri) {
    var r = RUNS[ri];
    return (!state.bench || r.benchmark === state.bench) && (!state.run || String(ri) === state.run);
  }

  function numericSort(a, b) { return a.localeCompare(b, undefined, { numeric: true }); }

  function refreshOptions() {
    var benches = [];
    RUNS.forEach(function (r) { if (benches.indexOf(r.benchmark) < 0) benches.push(r.benchmark); });
    state.bench = setOptions(sel.bench, benches.sort());
    var runs = [];
    RUNS.forEach(function (r, i) { if (!state.bench || r.benchmark === state.bench) runs.push(String(i)); });
    state.run = setOptions(sel.run, runs, function (i) { return RUNS[+i].label + " (" + RUNS[+i].benchmark + ")"; });
    var subsets = new Set(), rules = new Set();
    for (var i = 0; i < ITEMS.length; i++) {
      var it = ITEMS[i];
      if (!runOk(it[0])) continue;
      subsets.add(it[2]);
    }
    state.subset = setOptions(sel.subset, Array.from(subsets).sort(numericSort));
    for (i = 0; i < ITEMS.length; i++) {
      it = ITEMS[i];
      if (!runOk(it[0]) || (state.subset && it[2] !== state.subset) || it[4] === null) continue;
      rules.add(String(it[4]));
    }
    state.rule = setOptions(sel.rule, Array.from(rules).sort(numericSort));
    sel.rule.disabled = rules.size === 0;
    state.verdict = setOptions(sel.verdict, VERDICTS);
  }

  // search: a chunk's unique segments are tested once per query, then its items test their segment ids
  function segHits(c, q) {
    var sh = c.sh;  // the segments are shared by every run: tested once per query
    if (sh.q === q) return sh.hit;
    if (!sh.lower) sh.lower = sh.strs.map(function (s) { return s.toLowerCase(); });
    var hit = new Uint8Array(sh.strs.length);
    for (var i = 0; i < sh.lower.length; i++) if (sh.lower[i].indexOf(q) >= 0) hit[i] = 1;
    sh.q = q; sh.hit = hit;
    return hit;
  }
  function has(t, q, c) {
    if (t === null || t === undefined) return false;
    if (typeof t === "string") return t.toLowerCase().indexOf(q) >= 0;
    var hit = segHits(c, q);
    for (var i = 0; i < t.length; i++) {
      var p = t[i];
      if (typeof p === "number" ? hit[p] : p.toLowerCase().indexOf(q) >= 0) return true;
    }
    // a query spanning a blank line between parts
    return q.indexOf("\n") >= 0 && txt(t, c.strs).toLowerCase().indexOf(q) >= 0;
  }
  function matches(it, q) {
    if (has(it[1], q) || has(it[6], q) || has(it[7], q)) return true;
    var c = LOADED[it[0]], turns = turnsOf(it);
    if (!turns) return false;
    for (var k = 0; k < turns.length; k++) {
      var t = turns[k];
      if (has(t[1], q, c) || has(t[2], q, c) || has(t[7], q, c)) return true;
      var pr = promptOf(t, c);
      for (var m = 0; m < pr.length; m++) if (has(pr[m][1], q, c)) return true;
    }
    return false;
  }

  var searchGen = 0;
  function applyFilters() {
    var q = state.q.trim().toLowerCase();
    var gen = ++searchGen;
    if (q) {  // the texts of the runs in view are needed: load those not loaded yet, then filter
      var need = [];
      RUNS.forEach(function (r, ri) { if (runOk(ri) && !LOADED[ri]) need.push(ri); });
      if (need.length) {
        $("item-count").textContent = "loading the texts of " + need.length + " run(s)…";
        busy(Promise.all(need.map(chunk))).then(function () { if (gen === searchGen) applyFilters(); }, function (e) {
          if (gen === searchGen) $("item-count").textContent = String(e.message || e);
        });
        return;
      }
    }
    filtered = [];
    for (var i = 0; i < ITEMS.length; i++) {
      var it = ITEMS[i];
      if (!runOk(it[0])) continue;
      if (state.subset && it[2] !== state.subset) continue;
      if (state.rule && String(it[4]) !== state.rule) continue;
      if (state.verdict && outcomeOf(it) !== state.verdict) continue;
      if (q && !matches(it, q)) continue;
      filtered.push(i);
    }
    page = 0;
    render();
  }

  function kv(box, k, v) {
    box.appendChild(mk("div", "k", k));
    box.appendChild(mk("div", "v", v));
  }
  function block(parent, label, text) {
    parent.appendChild(mk("div", "label", label));
    parent.appendChild(mk("pre", "text", text));
  }

  function detailRow(idx) {
    var it = ITEMS[idx], run = RUNS[it[0]];
    var tr = mk("tr", "detail");
    tr.setAttribute("data-idx", String(idx));
    var td = mk("td");
    td.colSpan = 9;
    var turns = turnsOf(it), S = LOADED[it[0]] ? LOADED[it[0]].strs : null;
    if (!turns) {  // this run's texts are not decoded yet: load them, then draw the page again
      td.appendChild(mk("p", "note loading", "loading the texts of this run…"));
      tr.appendChild(td);
      busy(chunk(it[0])).then(function () { render(); }, function (e) {
        td.replaceChildren(mk("p", "note", String(e.message || e)));
      });
      return tr;
    }
    var box = mk("div", "kv");
    kv(box, "run", run.model + " · " + run.benchmark + " · " + run.mode + " · " + run.id);
    kv(box, "item", it[1] + (it[3] ? " (sample " + it[3] + ")" : ""));
    kv(box, "category", it[2]);
    if (it[4] !== null) kv(box, "rule", it[4]);
    kv(box, "verdict", outcomeOf(it));
    td.appendChild(box);
    block(td, "gold answer", it[7] === null ? "(not recorded in the verdict)" : it[7]);
    block(td, "extracted answer", it[6] === null ? "(none)" : it[6]);
    acrossRuns(td, idx);
    turns.forEach(function (t, k) {
      var div = mk("div", "turn");
      div.appendChild(mk("h5", null, (turns.length > 1 ? "Turn " + (k + 1) + " · " : "") + (t[3] || "unscored") +
        (t[4] ? " · scored by " + t[4] : "") + (t[6] ? " · finish " + t[6] : "") +
        " · tokens " + tok(t[8]) + " in / " + tok(t[9]) + " out"));
      var det = mk("details", "prompt");
      var prompt = promptOf(t, LOADED[it[0]]);
      var lastUser = "";
      prompt.forEach(function (m) { if (m[0] === "user" || m[0] === "text") lastUser = txt(m[1], S); });
      det.appendChild(mk("summary", null, "prompt (" + prompt.length + " message" + (prompt.length === 1 ? "" : "s") +
        "): " + short(lastUser.replace(/\s+/g, " "), 120)));
      prompt.forEach(function (m) {
        var md = mk("div", "msg");
        md.appendChild(mk("div", "role", m[0]));
        md.appendChild(mk("pre", "text", txt(m[1], S)));
        det.appendChild(md);
      });
      div.appendChild(det);
      block(div, "completion", txt(t[1], S));
      if (t[7]) block(div, "error", t[7]);
      if (turns.length > 1) block(div, "extracted (this turn)", t[2] === null ? "(none)" : t[2]);
      block(div, "scoring: " + (t[4] || "?"), t[5] ? JSON.stringify(t[5], null, 1) : "(no detail)");
      td.appendChild(div);
    });
    tr.appendChild(td);
    return tr;
  }

  // the same item (key, sample, benchmark) in the other runs: verdicts and answers side by side, differences
  // from the opened run marked (the full word diff of two completions: `reasoneval show ITEM RUN RUN`)
  var byKey = null;
  function acrossRuns(parent, idx) {
    if (!byKey) {
      byKey = new Map();
      for (var i = 0; i < ITEMS.length; i++) {
        var k = RUNS[ITEMS[i][0]].benchmark + "\u0000" + ITEMS[i][1] + "\u0000" + ITEMS[i][3];
        var list = byKey.get(k);
        if (list) list.push(i); else byKey.set(k, [i]);
      }
    }
    var it = ITEMS[idx];
    var same = byKey.get(RUNS[it[0]].benchmark + "\u0000" + it[1] + "\u0000" + it[3]) || [];
    if (same.length < 2) return;
    parent.appendChild(mk("div", "label", "this item in " + same.length + " runs (≠: verdict or answer differs from this run)"));
    var table = mk("table", "across");
    var head = mk("tr");
    ["", "run", "mode", "verdict", "extracted", ""].forEach(function (h) { head.appendChild(mk("th", null, h)); });
    table.appendChild(head);
    same.forEach(function (j) {
      var o = ITEMS[j], differs = outcomeOf(o) !== outcomeOf(it) || o[6] !== it[6];
      var tr = mk("tr", (j === idx ? "self" : "") + (differs ? " differs" : ""));
      tr.appendChild(mk("td", null, j === idx ? "▶" : (differs ? "≠" : "")));
      tr.appendChild(mk("td", null, RUNS[o[0]].label));
      tr.appendChild(mk("td", null, RUNS[o[0]].mode));
      var v = mk("td");
      v.appendChild(mk("span", "badge " + outcomeOf(o), outcomeOf(o)));
      tr.appendChild(v);
      tr.appendChild(mk("td", "extracted", o[6] === null ? "(none)" : short(o[6], 200)));
      var act = mk("td");
      if (j !== idx) {
        var btn = mk("button", "cmp-btn", "compare");
        btn.type = "button";
        btn.addEventListener("click", function (e) { e.stopPropagation(); compareWith(parent, idx, j); });
        act.appendChild(btn);
      }
      tr.appendChild(act);
      table.appendChild(tr);
    });
    parent.appendChild(table);
  }

  // word diff: the other text as [changed, piece] pieces (LCS over whitespace-separated tokens)
  var DIFF_CELLS = 4000000;
  function wordDiff(a, b) {
    var A = a.split(/(\s+)/), B = b.split(/(\s+)/), n = A.length, m = B.length;
    if ((n + 1) * (m + 1) > DIFF_CELLS) return null;
    var L = new Uint32Array((n + 1) * (m + 1)), w = m + 1, i, j;
    for (i = n - 1; i >= 0; i--) for (j = m - 1; j >= 0; j--)
      L[i * w + j] = A[i] === B[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    var out = [];
    function push(ch, p) {
      if (out.length && out[out.length - 1][0] === ch) out[out.length - 1][1] += p; else out.push([ch, p]);
    }
    i = 0; j = 0;
    while (j < m) {
      if (i < n && A[i] === B[j]) { push(false, B[j]); i++; j++; }
      else if (i < n && L[(i + 1) * w + j] >= L[i * w + j + 1]) i++;
      else { push(/\S/.test(B[j]), B[j]); j++; }
    }
    return out;
  }
  function finalText(it) {
    var c = LOADED[it[0]], turns = turnsOf(it);
    return turns && turns.length ? txt(turns[turns.length - 1][1], c.strs) : "";
  }
  function compareWith(parent, idx, j) {
    var old = parent.querySelector(".compare");
    if (old) old.remove();
    var box = mk("div", "compare");
    parent.insertBefore(box, parent.querySelector("table.across").nextSibling);
    box.appendChild(mk("p", "note loading", "loading…"));
    busy(Promise.all([chunk(ITEMS[idx][0]), chunk(ITEMS[j][0])])).then(function () {
      var a = finalText(ITEMS[idx]), b = finalText(ITEMS[j]), pieces = wordDiff(a, b);
      box.replaceChildren();
      [[idx, null], [j, pieces]].forEach(function (x) {
        var col = mk("div", "side");
        col.appendChild(mk("div", "label", RUNS[ITEMS[x[0]][0]].label + (x[1] ? " (marked: words not in the other)" : "")));
        var pre = mk("pre", "text");
        if (x[1] === null) pre.textContent = x[0] === idx ? a : b;
        else x[1].forEach(function (p) { pre.appendChild(p[0] ? mk("mark", null, p[1]) : document.createTextNode(p[1])); });
        col.appendChild(pre);
        box.appendChild(col);
      });
      if (pieces === null) box.appendChild(mk("p", "note", "too long to mark the differences here: reasoneval show " +
        ITEMS[idx][1] + " " + RUNS[ITEMS[idx][0]].id + " " + RUNS[ITEMS[j][0]].id));
    }, function (e) { box.replaceChildren(mk("p", "note", String(e.message || e))); });
  }

  function itemRow(idx) {
    var it = ITEMS[idx], run = RUNS[it[0]];
    var tr = mk("tr", "item" + (opened.has(idx) ? " open" : ""));
    tr.setAttribute("data-idx", String(idx));
    tr.tabIndex = 0;
    tr.appendChild(mk("td", null, run.label));
    tr.appendChild(mk("td", null, it[1]));
    tr.appendChild(mk("td", null, it[2]));
    tr.appendChild(mk("td", null, it[4] === null ? "" : it[4]));
    var vtd = mk("td");
    var oc = outcomeOf(it);
    vtd.appendChild(mk("span", "badge " + oc, oc));
    tr.appendChild(vtd);
    tr.appendChild(mk("td", "extracted", short(it[6], 120)));
    tr.appendChild(mk("td", "gold", short(it[7], 120)));
    tr.appendChild(mk("td", "num", it[8]));
    tr.appendChild(mk("td", "num", tok(it[9])));
    var toggle = function () {
      if (opened.has(idx)) opened.delete(idx); else opened.add(idx);
      render();
    };
    tr.addEventListener("click", toggle);
    tr.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
    return tr;
  }

  function render() {
    var tbody = $("item-rows");
    var n = filtered.length;
    var pages = Math.max(1, Math.ceil(n / PAGE));
    if (page >= pages) page = pages - 1;
    if (page < 0) page = 0;
    var start = page * PAGE, end = Math.min(n, start + PAGE);
    var frag = document.createDocumentFragment();
    for (var i = start; i < end; i++) {
      var idx = filtered[i];
      frag.appendChild(itemRow(idx));
      if (opened.has(idx)) frag.appendChild(detailRow(idx));
    }
    tbody.replaceChildren(frag);
    $("item-count").textContent = n ? (start + 1) + "–" + end + " of " + n + " items (page " + (page + 1) + "/" + pages +
      ")" + (n < ITEMS.length ? " · " + ITEMS.length + " in total" : "") : "no items match (" + ITEMS.length + " in total)";
    $("p-prev").disabled = page === 0;
    $("p-next").disabled = page >= pages - 1;
  }

  ["bench", "run", "subset", "rule", "verdict"].forEach(function (k) {
    sel[k].addEventListener("change", function () {
      if (!D) return;
      state[k] = sel[k].value;
      refreshOptions();
      applyFilters();
    });
  });
  var timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state.q = search.value; if (D) applyFilters(); }, 150);
  });
  search.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { clearTimeout(timer); state.q = search.value; if (D) applyFilters(); }
  });
  $("p-prev").addEventListener("click", function () { page -= 1; render(); });
  $("p-next").addEventListener("click", function () { page += 1; render(); });

  unpack(indexEl.textContent).then(function (data) {
    D = data; RUNS = D.runs; ITEMS = D.items; PAGE = D.pageSize || 50;
    refreshOptions();
    applyFilters();
    document.body.setAttribute("data-ready", "1");
    if (window.performance && performance.mark) performance.mark("report-ready");
  }, function (e) { $("item-count").textContent = "cannot read the item data: " + String(e.message || e); });
})();
