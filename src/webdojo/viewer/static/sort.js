/* Sortable tables, shared by the viewer and the standalone report (no modules, no build).
 *
 * Any <table class="sortable"> sorts by a column when its header is clicked (again: reverse).
 * A cell's data-v attribute, if present, is the value sorted on; numbers sort as numbers and
 * empty cells sort last. window.wdSort.reapply(table) sorts again after rows were replaced.
 */
(function () {
  "use strict";

  function value(row, col) {
    const cell = row.cells[col];
    if (!cell) return "";
    return cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent.trim();
  }

  function compare(a, b) {
    if (a === "" || b === "") return a === b ? 0 : a === "" ? 1 : -1;
    const x = Number(a), y = Number(b);
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
    return a.localeCompare(b, undefined, { numeric: true });
  }

  function apply(table, col, dir) {
    const body = table.tBodies[0];
    if (!body) return;
    const rows = Array.from(body.rows);
    rows.sort((r1, r2) => {
      const c = compare(value(r1, col), value(r2, col));
      return dir === "desc" ? -c : c;
    });
    rows.forEach((r) => body.appendChild(r));
    table.dataset.sortCol = String(col);
    table.dataset.sortDir = dir;
    Array.from(table.tHead.rows[0].cells).forEach((th, i) => {
      th.setAttribute("aria-sort", i === col ? (dir === "asc" ? "ascending" : "descending") : "none");
    });
  }

  function reapply(table) {
    if (table.dataset.sortCol !== undefined) {
      apply(table, Number(table.dataset.sortCol), table.dataset.sortDir || "asc");
    }
  }

  document.addEventListener("click", (event) => {
    const th = event.target.closest("table.sortable thead th");
    if (!th || th.classList.contains("nosort")) return;
    const table = th.closest("table");
    const col = th.cellIndex;
    const same = table.dataset.sortCol === String(col);
    const dir = same && table.dataset.sortDir === "asc" ? "desc" : "asc";
    apply(table, col, dir);
  });

  window.wdSort = { apply: apply, reapply: reapply };
})();
