"""The single judges' names, without the judges: what command-line help lists at start-up
(``judges.spec`` imports every judge class; tests check both name the same judges)."""

JUDGE_NAMES = ("exact", "f1", "programmatic", "rubric", "rubric-task", "website-failure")
