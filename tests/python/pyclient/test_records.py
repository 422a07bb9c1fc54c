"""The pure parts of the client's validation records (issue 38), without a server: the
version order, the history's order and shape, records from their messages, and the source
of a run read from a file."""

import datetime
import hashlib

import pytest

import wasserwarp
from wasserwarp.records import ValidationRecord, history
from wasserwarp.runs import Run, RunSource, upload_messages
from wasserwarp.v1 import validation_pb2 as pb
from wasserwarp.version_order import compare_versions, version_key


def test_versions_sort_as_versions():
    assert compare_versions("4.9.2", "4.10.0") < 0
    assert compare_versions("4.2.0-rc1", "4.2.0") < 0
    assert compare_versions("4.2.0-rc1", "4.2.0-rc2") < 0
    assert compare_versions("4.2.0", "4.2.0") == 0
    assert compare_versions("4.02", "4.2") == 0
    assert compare_versions("4.2.0-1", "4.2.0") > 0  # a Debian revision, not a pre-release
    assert compare_versions("4.2", "4.2.1") < 0
    assert compare_versions("1.0", "1.a") < 0
    assert compare_versions("2026-02-28", "2026-03-01T00:00:00Z") < 0
    assert sorted(["4.10.0", "4.9.2", "4.2.0", "4.2.0-rc1"], key=version_key) == [
        "4.2.0-rc1", "4.2.0", "4.9.2", "4.10.0"]


def record(validation_id, version, distance, created, passed=None, state=None):
    message = pb.Validation(name=f"sessions/s/validations/{validation_id}",
                            state=state or pb.VALIDATION_STATE_SUCCEEDED,
                            labels={"model": "vdyn", **({"version": version} if version else {})})
    message.create_time.FromSeconds(created)
    if message.state == pb.VALIDATION_STATE_SUCCEEDED:
        message.outcome.distance = distance
        if passed is not None:
            message.outcome.passed = passed
    return ValidationRecord.from_proto(message)


def test_history_orders_by_version_then_time_and_leaves_out_the_rest():
    records = [record("a", "4.10.0", 0.3, 400, True), record("b", "4.9.2", 0.2, 300, True),
               record("c", "", 0.1, 100), record("d", "4.2.0", 0.5, 200, False),
               record("e", "4.9.2", 0.25, 250, True),
               record("f", "5.0", 0, 500, state=pb.VALIDATION_STATE_FAILED)]
    ordered = history(records, "labels.version")
    assert [r["name"].rsplit("/", 1)[1] for r in ordered] == ["d", "e", "b", "a"]
    assert history(records, "version") == ordered
    assert list(ordered[0]) == ["name", "by", "labels", "distance", "ratio", "ratio_interval",
                                "p_value", "passed", "create_time"]
    assert ordered[0]["by"] == "4.2.0"
    assert ordered[0]["passed"] is False
    assert ordered[0]["ratio_interval"] is None
    assert ordered[0]["create_time"] == "1970-01-01T00:03:20Z"
    with pytest.raises(ValueError):
        history(records, "labels.")


def test_record_exposes_its_new_fields():
    message = pb.Validation(name="sessions/s/validations/v", state=pb.VALIDATION_STATE_SUCCEEDED,
                            labels={"version": "1.0", "model": "vdyn"}, principal="alice",
                            request_digest="ab" * 32)
    message.outcome.distance = 0.5
    message.outcome.ratio = 1.2
    message.outcome.ratio_interval_lo = 0.9
    message.outcome.ratio_interval_hi = 1.4
    message.outcome.p_value = 0.3
    message.engine.version = "0.1.0"
    message.engine.simd_target = "AVX2"
    message.request.verdict.max_ratio = 1.5
    event = message.events.add(kind=pb.ValidationEvent.KIND_CREATE, principal="alice")
    event.time.FromSeconds(60)
    r = ValidationRecord.from_proto(message)
    assert r.labels == {"model": "vdyn", "version": "1.0"}
    assert r.outcome == wasserwarp.Outcome(0.5, None, 0.3, 1.2, (0.9, 1.4))
    assert r.engine.simd_target == "AVX2"
    assert r.max_ratio == 1.5 and r.max_distance is None
    assert r.events[0].kind == "create"
    assert r.events[0].time == datetime.datetime(1970, 1, 1, 0, 1, tzinfo=datetime.timezone.utc)
    d = r.to_dict()
    assert d["outcome"]["ratio_interval"] == [0.9, 1.4]
    assert d["request_digest"] == "ab" * 32
    assert d["start_time"] is None
    assert d["events"] == [{"kind": "create", "time": "1970-01-01T00:01:00Z",
                            "principal": "alice", "replica": ""}]


def test_runs_from_files_send_their_source(tmp_path):
    path = tmp_path / "sim1.csv"
    path.write_bytes(b"time,x\n0,1\n1,2\n")
    run = Run.of("sim1", [0.0, 1.0], [1.0, 2.0], ["x"]).with_source(path)
    assert run.source == RunSource(str(path), hashlib.sha256(path.read_bytes()).hexdigest())
    header = pb.UploadSeriesRequest.FromString(
        next(upload_messages("sessions/s", pb.ROLE_SIMULATION, [run]))).header
    assert header.source.file == str(path)
    assert len(header.source.sha256) == 64
    bare = pb.UploadSeriesRequest.FromString(next(upload_messages(
        "sessions/s", pb.ROLE_SIMULATION, [Run.of("a", [0.0], [1.0], ["x"])]))).header
    assert not bare.HasField("source")


def test_list_validations_needs_a_session_or_all_sessions():
    with wasserwarp.Client("127.0.0.1:1") as client:
        with pytest.raises(ValueError):
            client.list_validations()
        with pytest.raises(ValueError):
            client.list_validations("s", all_sessions=True)
        with pytest.raises(ValueError):
            client.list_validations("s", state="done")
