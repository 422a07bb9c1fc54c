"""The Python client against a real wasserwarp-server: sessions, uploads from numpy and
pandas, validation equal to the CLI's JSON number for number, TWED, errors."""

import json
import os
import pathlib
import subprocess
import sys

import grpc
import numpy as np
import pytest

import wasserwarp
import harness
from conftest import CHANNELS, binary, certificates, lane_change, runs
from wasserwarp.runs import Run, chunk_message, role_value, upload_messages
from wasserwarp.v1 import validation_pb2 as pb

VERDICT = {"max_ratio": 1.5, "permutations": 199, "seed": 7}
CLI_VERDICT = ["--max-ratio", "1.5", "--permutations", "199", "--seed", "7"]


@pytest.fixture
def bench(client: wasserwarp.Client):
    """A session with 4 reference and 3 simulated runs; deleted afterwards."""
    session = client.create_session("bench", scale="reference-std", deletion_penalty=0.3)
    client.upload(session, "reference", runs("ref", 4, 1.0, seed=10))
    client.upload("bench", "simulation", runs("sim", 3, 1.1, seed=20))
    yield session
    client.delete_session(session)
    # Its validations are records: the session stays as a tombstone until deleted too.
    if client.get_session("bench").state != "active":
        client.delete_session("bench")


def cli_report(cli: str, address: str, session: str, *flags: str) -> dict:
    """The CLI's `validate --json -` on the same session."""
    done = subprocess.run([cli, "validate", "--server", address, "--session", session,
                           "--json", "-", *flags], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def without_time(report: dict) -> str:
    """The report less its wall time (the one thing two runs of a validation differ in) as
    JSON, so that an integer written as a float, or a key order, would differ too."""
    return json.dumps({key: value for key, value in report.items() if key != "seconds"})


def test_sessions_are_created_listed_shown_and_deleted(client: wasserwarp.Client):
    created = client.create_session("rig7", labels={"bench": "hil3"}, nu=0.01, align="start")
    assert created.session_id == "rig7" and created.name == "sessions/rig7"
    assert created.labels == {"bench": "hil3"}
    assert created.default_parameters.nu == pytest.approx(0.01)
    client.upload("rig7", "reference", runs("ref", 2, 1.0, seed=1))
    shown = client.get_session(created)
    assert [(run.run_id, run.role, run.samples, run.channels) for run in shown.runs] == [
        ("ref0", "reference", 300, tuple(CHANNELS)), ("ref1", "reference", 325, tuple(CHANNELS))]
    assert "rig7" in [session.session_id for session in client.list_sessions()]
    client.delete_session("rig7")
    assert "rig7" not in [session.session_id for session in client.list_sessions()]


def test_simulated_runs_carry_their_parameters_and_trial(client: wasserwarp.Client):
    client.create_session("study")
    ((run_id, times, values, channels),) = runs("sim", 1, 1.1, seed=70)
    simulated = Run.of(run_id, times, values, channels, trial="road-3",
                       parameters={"mass": 1250.5, "cf.front": np.float64(-8.1e4)})
    committed = client.upload("study", "simulation", [simulated])
    assert committed[0].parameters == {"cf.front": -8.1e4, "mass": 1250.5}
    client.upload("study", "reference", runs("ref", 1, 1.0, seed=71))
    shown = client.get_session("study").runs
    assert [(run.run_id, run.parameters, run.trial) for run in shown] == [
        ("sim0", {"cf.front": -8.1e4, "mass": 1250.5}, "road-3"), ("ref0", {}, "")]
    assert list(shown[0].parameters) == ["cf.front", "mass"]  # in name order

    with pytest.raises(wasserwarp.WasserwarpError) as measured:
        client.upload("study", "reference", [Run.of("ref9", times, values, channels,
                                                     trial="road-3")])
    assert measured.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "simulated runs only" in measured.value.details
    with pytest.raises(wasserwarp.WasserwarpError) as unnamed:
        client.upload("study", "simulation", [Run.of("sim9", times, values, channels,
                                                      parameters={"2nd_gear": 1.0})])
    assert unnamed.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "series[0].header.parameters" in unnamed.value.details
    assert "starts with a digit" in unnamed.value.details
    client.delete_session("study")


def test_validation_equals_the_cli_json_number_for_number(client, server, cli, bench):
    events = []
    result = client.validate(bench, progress=events.append, quantities=["yaw_rate:max"],
                             include_cost_matrix=True, include_pooled_cost_matrix=True,
                             **VERDICT)
    expected = cli_report(cli, server.address, "bench", "--qoi", "yaw_rate:max",
                          "--cost-matrix", *CLI_VERDICT)
    assert without_time(result.to_dict()) == without_time(expected)
    assert all(event.phase != "unknown" for event in events)


def test_bands_equal_the_cli_json_and_bad_ones_name_the_field(client, server, cli, bench):
    band = "yaw_rate:abs=0.05,rel=0.1,lead=0.02,lag=0.02"
    result = client.validate(bench, bands=[band], band_min_inside=0.5, permutations=19)
    expected = cli_report(cli, server.address, "bench", "--band", band, "--band-min-inside", "0.5",
                          "--permutations", "19")
    assert without_time(result.to_dict()) == without_time(expected)
    assert len(result.bands) == len(result.plan)
    assert all(b.channel == "yaw_rate" and 0.0 <= b.inside <= 1.0 for b in result.bands)
    assert result.verdict.rules[-1].name == "band_min_inside"

    for bands, field, message in ((["yaw_rate:abs=-1"], "bands", "abs must be"),
                                  (["yaw"], "bands[0]", "expected CHANNEL:"),
                                  (["yaw:abs=1"], "bands", "no such channel")):
        with pytest.raises(wasserwarp.WasserwarpError) as refused:
            client.validate(bench, bands=bands)
        assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert f"{field}: " in refused.value.details
        assert message in refused.value.details
    with pytest.raises(wasserwarp.WasserwarpError) as refused:
        client.validate(bench, band_min_inside=2.0, bands=[band])
    assert "verdict.band_min_inside: " in refused.value.details


def test_result_is_typed(client, bench):
    result = client.validate(bench, include_cost_matrix=True, include_html_report=True,
                             **VERDICT)
    assert "<html" in result.html_report
    assert result.solver in ("assignment", "network_simplex", "monotone")
    assert result.params.channels == tuple(CHANNELS)
    assert result.cost_matrix.shape == (3, 4)
    assert result.plan_matrix.sum() == pytest.approx(1.0)
    # Each side's contributions sum to W_q^q.
    assert result.sim_contributions.sum() == pytest.approx(result.distance ** result.order)
    assert result.ref_contributions.shape == (4,)
    assert isinstance(result.verdict.passed, bool)
    assert result.verdict.baseline.ratio > 0
    assert result.pair_metrics_average[0].rmse > 0


def test_overrides_change_only_the_call(client, server, cli, bench):
    result = client.validate(bench, nu=0.5, resample_rate=50.0)
    assert result.params.nu == 0.5 and result.params.resample_rate == 50.0
    assert result.verdict is None
    expected = cli_report(cli, server.address, "bench", "--nu", "0.5", "--resample", "50")
    assert without_time(result.to_dict()) == without_time(expected)
    assert client.validate(bench).params.nu != 0.5


def test_exhaustive_computes_every_pair_for_the_same_distance(client, bench):
    lazy = client.validate(bench)
    exhaustive = client.validate(bench, exhaustive=True)
    assert exhaustive.pairs_computed == exhaustive.pairs_total == 3 * 4
    assert exhaustive.dp_cells == exhaustive.dp_cells_full and exhaustive.single_cells == 0
    assert exhaustive.int16_cells == 0
    assert lazy.int16_cells <= lazy.dp_cells_full and lazy.single_cells <= lazy.dp_cells_full
    assert lazy.pairs_total == 3 * 4 and lazy.pairs_computed <= lazy.pairs_total
    assert lazy.distance == pytest.approx(exhaustive.distance, rel=1e-12)


def test_dataframes_upload_like_arrays(client: wasserwarp.Client):
    pandas = pytest.importorskip("pandas")
    arrays = runs("ref", 2, 1.0, seed=3)
    frames = [(run_id, pandas.DataFrame(values, columns=channels).assign(time=times))
              for run_id, times, values, channels in arrays]
    indexed = [(run_id, pandas.DataFrame(values, columns=channels,
                                         index=pandas.Index(times, name="time")))
               for run_id, times, values, channels in runs("sim", 2, 1.2, seed=4)]
    client.create_session("frames")
    client.upload("frames", "reference", frames)
    client.upload("frames", "simulation", indexed)
    client.create_session("arrays")
    client.upload("arrays", "reference", arrays)
    client.upload("arrays", "simulation", runs("sim", 2, 1.2, seed=4))
    shown = client.get_session("frames")
    assert [run.channels for run in shown.runs] == [tuple(CHANNELS)] * 4
    assert client.validate("frames").distance == client.validate("arrays").distance
    client.delete_session("frames")
    client.delete_session("arrays")


def test_datetime_times_count_seconds_from_the_first_sample(client: wasserwarp.Client):
    pandas = pytest.importorskip("pandas")
    arrays = runs("ref", 2, 1.0, seed=5)
    start = pandas.Timestamp("2026-03-29 01:59:59.5", tz="Europe/Berlin")  # across DST
    stamped = [(run_id, pandas.DataFrame(
        values, columns=channels,
        index=start + pandas.to_timedelta(times - times[0] + 7.0, unit="s")))
        for run_id, times, values, channels in arrays]
    column = [(run_id, pandas.DataFrame(values, columns=channels).assign(
        time=pandas.Timestamp("2026-01-01") + pandas.to_timedelta(times, unit="s")))
        for run_id, times, values, channels in runs("sim", 2, 1.2, seed=6)]
    client.create_session("stamped")
    client.upload("stamped", "reference", stamped)
    client.upload("stamped", "simulation", column)
    client.create_session("seconds")
    # The same runs, their times counted from their first sample.
    client.upload("seconds", "reference", [(run_id, times - times[0], values, channels)
                                           for run_id, times, values, channels in arrays])
    client.upload("seconds", "simulation", [(run_id, times - times[0], values, channels)
                                            for run_id, times, values, channels
                                            in runs("sim", 2, 1.2, seed=6)])
    assert client.validate("stamped").to_dict()["distance"] == pytest.approx(
        client.validate("seconds").to_dict()["distance"], rel=1e-12)
    client.delete_session("stamped")
    client.delete_session("seconds")


def test_large_runs_are_chunked_under_the_message_limit(client: wasserwarp.Client):
    times, values = lane_change(5, 200_000, 1.0)  # 4.8 MB of samples
    run = Run.of("long", times, values, CHANNELS)
    messages = [pb.UploadSeriesRequest.FromString(message) for message in
                upload_messages("sessions/long", role_value("reference"), [run])]
    assert [message.WhichOneof("part") for message in messages] == (
        ["header"] + ["chunk"] * 5 + ["end"])
    assert messages[0].session == "sessions/long" and messages[-1].end.expected_samples == 200_000
    assert not messages[0].header.parameters and not messages[0].header.trial
    assert max(message.ByteSize() for message in messages) < (1 << 20) + 64
    assert np.array_equal(np.concatenate([m.chunk.times for m in messages[1:-1]]), times)
    assert np.array_equal(np.concatenate([m.chunk.values for m in messages[1:-1]]),
                          values.ravel())
    client.create_session("long")
    committed = client.upload("long", "reference", [run])
    assert committed[0].samples == 200_000
    client.delete_session("long")


def test_chunks_are_encoded_as_protobuf_encodes_them():
    times, values = lane_change(6, 1000, 1.0)
    expected = pb.UploadSeriesRequest(chunk=pb.SeriesChunk(times=times, values=values.ravel()))
    assert chunk_message(times, values.ravel()) == expected.SerializeToString()


def test_compute_twed(client: wasserwarp.Client):
    a = runs("a", 1, 1.0, seed=8)[0]
    b = runs("b", 1, 1.3, seed=9)[0]
    assert client.compute_twed(a, a, deletion_penalty=0.3).twed == 0.0
    ab = client.compute_twed(a, b, nu=0.01, deletion_penalty=0.3)
    ba = client.compute_twed(b, a, nu=0.01, deletion_penalty=0.3)
    assert ab.twed > 0 and ab.twed == pytest.approx(ba.twed)
    assert ab.matches + ab.a_deletions == 300


def test_errors_keep_the_status_code_and_message(client: wasserwarp.Client):
    with pytest.raises(wasserwarp.WasserwarpError) as missing:
        client.get_session("no-such-session")
    assert missing.value.code == grpc.StatusCode.NOT_FOUND
    assert "no-such-session" in missing.value.details

    client.create_session("errors")
    good = runs("ref", 1, 1.0, seed=2)
    client.upload("errors", "reference", good)
    with pytest.raises(wasserwarp.WasserwarpError) as duplicate:
        client.upload("errors", "reference", good)
    assert duplicate.value.code == grpc.StatusCode.ALREADY_EXISTS

    times = np.array([0.0, 0.2, 0.1])
    with pytest.raises(wasserwarp.WasserwarpError) as unordered:
        client.upload("errors", "simulation", [("bad", times, np.zeros((3, 1)), ["x"])])
    assert unordered.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "bad" in unordered.value.details

    with pytest.raises(wasserwarp.WasserwarpError) as invalid:
        client.compute_twed(good[0], good[0], p=0.5)
    assert invalid.value.code == grpc.StatusCode.INVALID_ARGUMENT
    client.delete_session("errors")


def test_the_token_goes_with_every_call(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("bench:s3cret\n")
    guarded = harness.Server(binary("WASSERWARP_SERVER"), str(tmp_path / "server.log"),
                             flags=[f"--auth_tokens_file={tokens}"])
    try:
        with wasserwarp.Client(guarded.address) as anonymous:
            with pytest.raises(wasserwarp.WasserwarpError) as refused:
                anonymous.list_sessions()
            assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED
        with wasserwarp.Client(guarded.address, token="s3cret") as client:
            client.create_session("guarded")
            client.upload("guarded", "reference", runs("ref", 2, 1.0, seed=50))
            client.upload("guarded", "simulation", runs("sim", 2, 1.0, seed=60))
            assert client.validate("guarded").distance > 0
    finally:
        guarded.stop_and_check()


def test_mutual_tls(tmp_path):
    pem = certificates(tmp_path)
    secured = harness.Server(binary("WASSERWARP_SERVER"), str(tmp_path / "server.log"),
                             flags=[f"--tls_cert={pem / 'server.pem'}",
                                    f"--tls_key={pem / 'server.key'}",
                                    f"--tls_client_ca={pem / 'ca.pem'}"])
    root = (pem / "ca.pem").read_bytes()
    try:
        with wasserwarp.Client(secured.address, root_certificates=root,
                               certificate_chain=(pem / "client.pem").read_bytes(),
                               private_key=(pem / "client.key").read_bytes()) as client:
            assert client.create_session("tls").session_id == "tls"
        with wasserwarp.Client(secured.address, root_certificates=root, timeout=5) as stranger:
            with pytest.raises(wasserwarp.WasserwarpError) as refused:
                stranger.list_sessions()
            assert refused.value.code == grpc.StatusCode.UNAVAILABLE
    finally:
        secured.stop_and_check()


def test_tls_with_the_system_roots(tmp_path):
    pem = certificates(tmp_path)
    secured = harness.Server(binary("WASSERWARP_SERVER"), str(tmp_path / "server.log"),
                             flags=[f"--tls_cert={pem / 'server.pem'}",
                                    f"--tls_key={pem / 'server.key'}"])
    # gRPC reads the system roots once per process: a child for each set of roots.
    script = ("import sys, wasserwarp\n"
              "with wasserwarp.Client(sys.argv[1], tls=True, timeout=5) as client:\n"
              "    try:\n"
              "        client.list_sessions()\n"
              "        print('served')\n"
              "    except wasserwarp.WasserwarpError as error:\n"
              "        print(error.code.name)\n")
    try:
        for roots, expected in ((pem / "ca.pem", "served"), (pem / "client.pem", "UNAVAILABLE")):
            environment = {**os.environ,
                           "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(roots)}
            done = subprocess.run([sys.executable, "-c", script, secured.address],
                                  capture_output=True, text=True, timeout=60, env=environment)
            assert done.stdout.strip() == expected, done.stderr
    finally:
        secured.stop_and_check()
    with pytest.raises(ValueError, match="both or neither"):
        wasserwarp.Client("localhost:1", certificate_chain=b"x")


def test_mistakes_are_caught_before_sending(client: wasserwarp.Client):
    with pytest.raises(ValueError, match="role"):
        client.upload("x", "measurement", [])
    with pytest.raises(ValueError, match="2 x 1"):
        client.upload("x", "reference", [("r", [0.0, 1.0], [[1.0], [2.0]], ["a", "b"])])
    with pytest.raises(TypeError, match="lambda_"):
        client.validate("x", lambda_=0.3)
    with pytest.raises(ValueError, match="align"):
        client.create_session("x", align="end")


def test_bench_example_uploads_references_once(server, tmp_path):
    example = pathlib.Path(__file__).parents[3] / "examples" / "python" / "bench_validation.py"
    for role, prefix, gain, seed in (("ref", "ref", 1.0, 30), ("sim", "sim", 1.05, 40)):
        (tmp_path / role).mkdir()
        for run_id, times, values, channels in runs(prefix, 3, gain, seed):
            np.savetxt(tmp_path / role / f"{run_id}.csv", np.column_stack([times, values]),
                       delimiter=",", header=",".join(["time", *channels]), comments="")
    command = [sys.executable, str(example), "--server", server.address, "--session",
               "example", "--ref", str(tmp_path / "ref"), "--sim", str(tmp_path / "sim"),
               "--json", str(tmp_path / "report.json")]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode in (0, 1), first.stderr
    assert "uploaded 3 reference runs" in first.stderr
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == first.returncode and "uploaded" not in again.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert [run["id"] for run in report["reference"]] == ["ref0", "ref1", "ref2"]


def test_studies_run_on_the_uploaded_parameters(client: wasserwarp.Client):
    """A study over runs uploaded with their parameters and trials: identification and
    sensitivity come back with the CLI's keys."""
    session = client.create_session("study")
    simulated = [Run.of(run_id, times, values, channels,
                        parameters={"gain": 1.0 + 0.1 * (k // 2)}, trial=f"t{k % 2}")
                 for k, (run_id, times, values, channels)
                 in enumerate(runs("sim", 6, 1.1, seed=40))]
    client.upload(session, "simulation", simulated)
    client.upload(session, "reference", runs("ref", 4, 1.0, seed=50))
    identified = client.identify(session, resamples=29, splits=29, nominal={"gain": 1.1})
    study = identified.identification
    assert study["names"] == ["gain"]
    assert len(study["points"]) == 3
    assert study["paired"] is True
    assert study["surface"]["lower"] == [1.0] and study["surface"]["upper"] == [1.2]
    assert study["surface"]["lower"][0] <= study["identified"][0] <= study["surface"]["upper"][0]
    assert len(study["nominal_difference"]) == 1
    assert identified.sensitivity is None
    assert len(identified.simulation) == 6

    sensitivity = client.sensitivity(session, {"gain": 1.1}, resamples=29, splits=29).sensitivity
    assert [p["name"] for p in sensitivity["parameters"]] == ["gain"]
    assert sensitivity["parameters"][0]["estimate"]["scheme"] == "central"
    with pytest.raises(wasserwarp.WasserwarpError) as error:
        client.sensitivity(session, {"gain": 5.0})
    assert "no simulated run has exactly these parameter values" in str(error.value)
    with pytest.raises(TypeError):
        client.identify(session, pair_cost=2.0)
    client.delete_session(session)


def test_a_token_goes_in_plaintext_only_to_loopback_unless_insecure():
    # 192.0.2.1 is TEST-NET-1: the refusal comes before any connection; with insecure=True
    # the channel is made but, without a call, never connects.
    with pytest.raises(wasserwarp.WasserwarpError) as refused:
        wasserwarp.Client("192.0.2.1:50051", token="tok-a")
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "in plaintext to 192.0.2.1" in refused.value.details
    assert "insecure=True" in refused.value.details
    wasserwarp.Client("192.0.2.1:50051", token="tok-a", insecure=True).close()
    wasserwarp.Client("192.0.2.1:50051").close()
    wasserwarp.Client("127.0.0.1:50051", token="tok-a").close()
    from wasserwarp.client import is_loopback_target
    for target in ("localhost:1", "127.9.9.9:1", "[::1]:1", "dns:///localhost:1", "unix:/s"):
        assert is_loopback_target(target), target
    for target in ("0.0.0.0:1", "[::]:1", "wasserwarp.lab:1", "[2001:db8::1]:1"):
        assert not is_loopback_target(target), target


def test_units_travel_with_runs_and_are_converted(client: wasserwarp.Client):
    pandas = pytest.importorskip("pandas")
    # The reference's yaw rate in rad/s, the simulation's in deg/s (as a DataFrame column
    # `name[unit]`): the service converts it as the CLI does, to the W of both in rad/s.
    reference = runs("ref", 2, 1.0, seed=80)
    simulated = runs("sim", 2, 1.1, seed=90)
    units = ("rad/s", "m/s2")
    degrees = [(run_id, pandas.DataFrame(values * [180.0 / np.pi, 1.0],
                                         columns=["yaw_rate[deg/s]", "lateral_acceleration[m/s2]"])
                .assign(time=times)) for run_id, times, values, _ in simulated]
    client.create_session("degrees")
    client.upload("degrees", "reference",
                  [Run.of(*run, units=units) for run in reference])
    committed = client.upload("degrees", "simulation", degrees)
    assert [run.units for run in committed] == [("deg/s", "m/s2")] * 2
    client.create_session("radians")
    client.upload("radians", "reference", [Run.of(*run, units=units) for run in reference])
    client.upload("radians", "simulation", [Run.of(*run, units=units) for run in simulated])
    shown = client.get_session("degrees")
    assert [run.units for run in shown.runs] == [units] * 2 + [("deg/s", "m/s2")] * 2
    assert client.validate("degrees").distance == pytest.approx(
        client.validate("radians").distance, rel=1e-12)

    _, times, values, _ = reference[0]
    with pytest.raises(wasserwarp.WasserwarpError) as refused:
        client.upload("degrees", "reference",
                      [Run.of("bad", times, values, CHANNELS, units=("rad/s", "m\n"))])
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "series[0].header.units[1]" in str(refused.value)
    assert "control characters" in refused.value.details
    client.delete_session("degrees")
    client.delete_session("radians")
