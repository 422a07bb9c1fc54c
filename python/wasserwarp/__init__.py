"""Python client of the wasserwarp validation service, for test benches: sessions holding
reference runs, uploads from numpy arrays or pandas DataFrames, validations with typed
results whose to_dict() is the CLI's `validate --json` report.

    with wasserwarp.Client("localhost:50051") as client:
        client.create_session("rig7", scale="reference-std", deletion_penalty=0.3)
        client.upload("rig7", "reference", [("ref1", times, values, ["yaw_rate"])])
        result = client.validate("rig7", max_ratio=1.5)
"""

from .client import Client, Progress, RunInfo, Session, TwedResult
from .errors import WasserwarpError
from .records import Outcome, ValidationRecord, history
from .report import ValidationResult, Verdict
from .runs import Run, RunSource
from .version_order import compare_versions

__all__ = ["Client", "Outcome", "Progress", "Run", "RunInfo", "RunSource", "Session",
           "TwedResult", "ValidationRecord", "ValidationResult", "Verdict", "WasserwarpError",
           "compare_versions", "history"]
