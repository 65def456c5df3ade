"""Configuration faults: the user's input is wrong. Fix it and run again."""

from __future__ import annotations

from webdojo.errors.base import Fault, WebdojoError


class ConfigError(WebdojoError):
    code = "config_error"
    fault = Fault.CONFIG


class TaskFileError(ConfigError):
    code = "bad_task_file"


class SuiteError(ConfigError):
    """An evaluation suite (``webdojo eval --suite``) that cannot be used: an unknown name, a
    suite file that is missing, unreadable or has a bad field. ``details`` name the suite."""

    code = "bad_suite"


class RecordSchemaError(ConfigError):
    """A stored trajectory record this webdojo cannot read: a newer ``schema_version``, or a
    line that does not match the record model."""

    code = "bad_record"


class LabelFileError(ConfigError):
    """A line of a human-label file (``webdojo.judges.human_labels``) that cannot be read."""

    code = "bad_label_file"


class ArchiveError(ConfigError):
    """A record/replay archive, WARC or HAR file that cannot be read: corrupt, truncated, of
    another format version. ``details`` name the file and, where the rest was read, how many
    records were skipped."""

    code = "bad_archive"


class BlocklistError(ConfigError):
    """A blocklist file (``webdojo.tasks.blocklist``) that is not the JSON object it describes;
    the message names the file and the entry."""

    code = "bad_blocklist"


class ZimError(ConfigError):
    """A ZIM file (an offline Wikipedia, ``webdojo.envs``) that cannot be served: missing,
    unreadable, or not a ZIM. ``details`` name the file."""

    code = "bad_zim"


class MissingDependency(ConfigError):
    """An optional package or program that a command needs is not installed; the message says
    what to install (the pip or apt line)."""

    code = "missing_dependency"


class MissingObservation(ConfigError):
    """A training sample whose step context cannot be rebuilt exactly: a screenshot or
    observation file is gone, or the run predates stored observations (schema v1-v2) or did
    not capture what the prompt template shows (an accessibility tree, a screenshot)."""

    code = "missing_observation"


class UnknownTask(ConfigError):
    code = "unknown_task"


class Unauthorized(ConfigError):
    code = "unauthorized"


class InvalidRequest(ConfigError):
    """A request that does not follow the wire protocol (bad JSON, missing fields...)."""

    code = "invalid_request"


class RequestTooLarge(InvalidRequest):
    code = "body_too_large"


class BadStartUrl(InvalidRequest):
    """A session's start URL that the agent's ``goto`` would refuse (``file:``, ``data:``,
    ``view-source:``, no host...): sessions open only where an agent may navigate."""

    code = "bad_start_url"


class MalformedHttp(InvalidRequest):
    """Bytes the server's HTTP parser refused: the connection is answered 400 and closed."""

    code = "malformed_http"


class RequestReadTimeout(InvalidRequest):
    """A request whose headers or body stopped arriving: answered 408 and closed, so that
    stalled clients cannot hold the server's connections."""

    code = "request_timeout"


class TrainingError(ConfigError):
    """Input the trainer cannot learn from, found before the first step where detectable."""

    code = "training_error"


class ModelMismatch(TrainingError):
    """A tokenizer or processor that does not fit its model (ids past the embedding table, a
    different image token), or a chat template that cannot mark the model's turns."""

    code = "model_mismatch"


class EmptyTrainingData(TrainingError):
    code = "empty_training_data"


class NoRewards(TrainingError):
    """An RL update whose every sample has a zero advantage (or reward): nothing to learn."""

    code = "no_rewards"


class MissingImages(TrainingError):
    """A vision model given examples without images, or an image that does not decode."""

    code = "missing_images"


class ExampleTooLong(TrainingError):
    """An example that cannot be cut to the token limit (its reply alone is longer, or the cut
    would split an image's tokens)."""

    code = "example_too_long"


class ResumeMismatch(TrainingError):
    """``--resume`` on an output directory whose checkpoint was trained on other data or with
    other settings: resuming would not continue that run."""

    code = "resume_mismatch"
