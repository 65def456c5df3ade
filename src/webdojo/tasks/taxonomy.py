"""The Mind2Web-2 domain taxonomy (6 domains, 24 subdomains) that WebGym labels tasks with.

Labels are matched case-insensitively and stored in their canonical spelling.
"""

from __future__ import annotations

DOMAINS: dict[str, tuple[str, ...]] = {
    "Lifestyle & Leisure": (
        "Shopping",
        "Food & Cooking",
        "Sports & Fitness",
        "Health & Medicine",
        "Pets & Animal Welfare",
        "Fashion & Beauty",
        "Hobbies & DIY",
    ),
    "Entertainment": (
        "Films & TV Shows",
        "Gaming & Virtual Worlds",
        "Live Shows & Performances",
        "Music",
        "Books & Reading",
    ),
    "Misc.": (
        "General Info.",
        "News",
        "Legal & Government Services",
        "Real Estate",
        "Finance & Investment",
    ),
    "Science & Research": ("Research & Academia", "Technology & Science"),
    "Career & Education": ("Education & Learning", "Jobs & Career"),
    "Travel & Transportation": (
        "Travel & Accommodation",
        "Outdoor & Recreation",
        "Ticketed Activities",
    ),
}

_DOMAIN_BY_KEY = {name.casefold(): name for name in DOMAINS}
_SUB_BY_KEY = {sub.casefold(): (sub, domain) for domain, subs in DOMAINS.items() for sub in subs}


def canonical_domain(label: str) -> str:
    """The canonical spelling of a domain label; ValueError names the known ones."""
    try:
        return _DOMAIN_BY_KEY[label.strip().casefold()]
    except KeyError:
        raise ValueError(f"unknown domain {label!r}; known: {', '.join(DOMAINS)}") from None


def canonical_subdomain(label: str) -> tuple[str, str]:
    """(subdomain, its domain) in canonical spelling; ValueError for an unknown label."""
    try:
        return _SUB_BY_KEY[label.strip().casefold()]
    except KeyError:
        raise ValueError(f"unknown subdomain {label!r} (see webdojo.tasks.taxonomy)") from None
