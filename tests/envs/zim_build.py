"""A small English ZIM built with libzim's Creator: a few articles with known facts, a main
page, a redirect and a stylesheet, with or without a full-text index."""

from __future__ import annotations

from pathlib import Path

ARTICLES = {
    # path: (title, body HTML)
    "Wilhelm_Röntgen": (
        "Wilhelm Röntgen",
        "<p><b>Wilhelm Conrad Röntgen</b> was a German physicist who discovered X-rays in "
        "1895. In 1901 he received the first Nobel Prize in Physics.</p>"
        '<p>See also <a href="Marie_Curie">Marie Curie</a>. '
        '<a href="https://en.wikipedia.org/wiki/Wilhelm_R%C3%B6ntgen">Online version</a></p>',
    ),
    "Marie_Curie": (
        "Marie Curie",
        "<p><b>Marie Curie</b> was a physicist and chemist. She was born in Warsaw in 1867 "
        "and shared the Nobel Prize in Physics in 1903.</p>",
    ),
    "Mount_Kilimanjaro": (
        "Mount Kilimanjaro",
        "<p><b>Mount Kilimanjaro</b> is the highest mountain in Africa, 5,895 metres above "
        "sea level, in Tanzania.</p>",
    ),
    "Main_Page": (
        "Welcome to the test wiki",
        '<ul><li><a href="Wilhelm_R%C3%B6ntgen">Wilhelm Röntgen</a></li>'
        '<li><a href="Marie_Curie">Marie Curie</a></li>'
        '<li><a href="Mount_Kilimanjaro">Mount Kilimanjaro</a></li></ul>',
    ),
}
STYLE = "body { color: #222 }"


def build_zim(out: Path, *, fulltext: bool = True) -> Path:
    from libzim.writer import Creator, Hint, Item, StringProvider

    class Page(Item):  # type: ignore[misc]
        def __init__(self, path: str, title: str, mimetype: str, content: str) -> None:
            super().__init__()
            self.path, self.title, self.mimetype, self.content = path, title, mimetype, content

        def get_path(self) -> str:
            return self.path

        def get_title(self) -> str:
            return self.title

        def get_mimetype(self) -> str:
            return self.mimetype

        def get_contentprovider(self) -> StringProvider:
            return StringProvider(self.content)

        def get_hints(self) -> dict[Hint, int]:
            return {Hint.FRONT_ARTICLE: self.mimetype == "text/html"}

    creator = Creator(str(out)).config_indexing(fulltext, "eng").config_nbworkers(1)
    with creator:
        creator.set_mainpath("Main_Page")
        for path, (title, body) in ARTICLES.items():
            html = (
                f'<html><head><meta charset="utf-8"><title>{title}</title>'
                '<link rel="stylesheet" href="style.css"></head>'
                f"<body><h1>{title}</h1>{body}</body></html>"
            )
            creator.add_item(Page(path, title, "text/html", html))
        creator.add_item(Page("style.css", "style.css", "text/css", STYLE))
        creator.add_redirection(
            "Roentgen", "Roentgen", "Wilhelm_Röntgen", {Hint.FRONT_ARTICLE: True}
        )
        for name, value in {"Title": "Test wiki", "Language": "eng", "Creator": "webdojo tests",
                            "Publisher": "webdojo", "Description": "a test ZIM",
                            "Name": "webdojo_test_wiki", "Date": "2026-01-01"}.items():  # fmt: skip
            creator.add_metadata(name, value)
    return out
