#!/usr/bin/env python3
"""A client of the validation service that knows nothing of its contract but what server
reflection tells it. Nothing of wasserwarp's .proto is compiled: the descriptors come from the
running server, through grpc.reflection.v1 and through grpc.reflection.v1alpha, and the message
classes are built from them at run time. Checks the health service, then calls every RPC of
wasserwarp.v1.ValidationService.

Only the reflection protocol itself is compiled, to a descriptor set, from
proto/grpc/reflection/v1/reflection.proto; v1alpha has the same messages under another package.

Usage: test_reflection_client.py --server PATH --protoc PATH --grpc-python-plugin PATH
                                 --proto-dir DIR
Exit status 77 (skipped) when python3-grpcio is not installed.
"""

import math
import os
import random
import subprocess
import sys

import harness  # exits 77 (skipped) without python3-grpcio
import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

ARGS = None
SERVICE = "wasserwarp.v1.ValidationService"
HEALTH = "grpc.health.v1.Health"
VERSIONS = ("v1", "v1alpha")


def reflection_classes(version, out_dir):
    """The request and response classes of grpc.reflection.<version>."""
    with open(os.path.join(ARGS.proto_dir, "grpc", "reflection", "v1", "reflection.proto"),
              encoding="utf-8") as source:
        text = source.read()
    package = f"grpc.reflection.{version}"
    text = text.replace("package grpc.reflection.v1;", f"package {package};")
    proto_dir = os.path.join(out_dir, version)
    os.makedirs(proto_dir, exist_ok=True)
    with open(os.path.join(proto_dir, "reflection.proto"), "w", encoding="utf-8") as copy:
        copy.write(text)
    descriptor_set = os.path.join(out_dir, f"reflection_{version}.pb")
    subprocess.run([ARGS.protoc, f"--descriptor_set_out={descriptor_set}", "-I", proto_dir,
                    "reflection.proto"], check=True)
    files = descriptor_pb2.FileDescriptorSet()
    with open(descriptor_set, "rb") as data:
        files.ParseFromString(data.read())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    factory = message_factory.MessageFactory(pool)
    return tuple(factory.GetPrototype(pool.FindMessageTypeByName(f"{package}.{name}"))
                 for name in ("ServerReflectionRequest", "ServerReflectionResponse"))


class Reflection:
    """grpc.reflection.<version> on a channel, one stream per question."""

    def __init__(self, channel, version, out_dir):
        self.request_class, response_class = reflection_classes(version, out_dir)
        self.info = channel.stream_stream(
            f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
            request_serializer=self.request_class.SerializeToString,
            response_deserializer=response_class.FromString)

    def ask(self, **question):
        responses = list(self.info(iter([self.request_class(**question)]), timeout=10))
        assert len(responses) == 1, responses
        return responses[0]

    def services(self):
        return [s.name for s in self.ask(list_services="").list_services_response.service]

    def files_defining(self, symbol):
        """FileDescriptorProtos of the file that defines `symbol` and of what it imports."""
        response = self.ask(file_containing_symbol=symbol)
        if response.WhichOneof("message_response") != "file_descriptor_response":
            raise LookupError(f"{symbol}: {response.error_response}")
        files = []
        for data in response.file_descriptor_response.file_descriptor_proto:
            file = descriptor_pb2.FileDescriptorProto()
            file.ParseFromString(data)
            files.append(file)
        return files


class Contract:
    """Services and message classes built from what reflection answered, nothing else."""

    def __init__(self, files):
        self.files = {file.name: file for file in files}
        self.pool = descriptor_pool.DescriptorPool()
        added = set()

        def add(name):
            if name in added:
                return
            for dependency in self.files[name].dependency:
                add(dependency)
            self.pool.Add(self.files[name])
            added.add(name)

        for name in self.files:
            add(name)
        self.factory = message_factory.MessageFactory(self.pool)

    def message(self, full_name):
        return self.factory.GetPrototype(self.pool.FindMessageTypeByName(full_name))

    def enum_value(self, enum_full_name, value_name):
        return self.pool.FindEnumTypeByName(enum_full_name).values_by_name[value_name].number

    def method(self, channel, service, name):
        """A callable for `service`/`name`, of the kind its streaming flags call for."""
        package, _, short = service.rpartition(".")
        proto = next(m for file in self.files.values() if file.package == package
                     for s in file.service if s.name == short for m in s.method if m.name == name)
        request = self.message(proto.input_type.lstrip("."))
        response = self.message(proto.output_type.lstrip("."))
        kind = {(False, False): channel.unary_unary, (True, False): channel.stream_unary,
                (False, True): channel.unary_stream,
                (True, True): channel.stream_stream}[(proto.client_streaming,
                                                      proto.server_streaming)]
        call = kind(f"/{service}/{name}", request_serializer=request.SerializeToString,
                    response_deserializer=response.FromString)
        return request, call


def random_walk(rng, samples):
    times, values, level, t = [], [], 0.0, 0.0
    for _ in range(samples):
        t += rng.uniform(0.005, 0.015)
        level += rng.gauss(0.0, 1.0)
        times.append(t)
        values.append(level)
    return times, values


class ReflectionClientTest(harness.ServerTestCase):

    def contract(self, version):
        reflection = Reflection(self.channel, version, self.tmp.name)
        services = reflection.services()
        for expected in (SERVICE, HEALTH, "grpc.reflection.v1alpha.ServerReflection",
                         "grpc.reflection.v1.ServerReflection"):
            self.assertIn(expected, services)
        with self.assertRaises(LookupError):
            reflection.files_defining("wasserwarp.v1.NoSuchThing")
        return Contract(reflection.files_defining(SERVICE) + reflection.files_defining(HEALTH))

    def test_every_rpc_through_reflection(self):
        for version in VERSIONS:
            with self.subTest(reflection=version):
                self.run_every_rpc(self.contract(version), f"reflected-{version}")

    def run_every_rpc(self, contract, session_id):
        channel = self.channel
        check_request, check = contract.method(channel, HEALTH, "Check")
        health = check(check_request(service=SERVICE), timeout=5)
        self.assertEqual(health.status,
                         contract.enum_value("grpc.health.v1.HealthCheckResponse.ServingStatus",
                                             "SERVING"))

        create_request, create = contract.method(channel, SERVICE, "CreateSession")
        session = contract.message("wasserwarp.v1.Session")(labels={"client": "reflection"})
        session.default_parameters.nu = 0.5
        name = create(create_request(session_id=session_id, session=session),
                      timeout=10).session.name
        self.assertEqual(name, f"sessions/{session_id}")

        get_request, get = contract.method(channel, SERVICE, "GetSession")
        self.assertEqual(get(get_request(name=name), timeout=10).session.labels["client"],
                         "reflection")
        list_request, list_sessions = contract.method(channel, SERVICE, "ListSessions")
        listed = list_sessions(list_request(page_size=100), timeout=10)
        self.assertIn(name, [s.name for s in listed.sessions])

        upload_request, upload = contract.method(channel, SERVICE, "UploadSeries")
        rng = random.Random(7)
        runs = [("ROLE_SIMULATION", f"sim{k}") for k in range(2)]
        runs += [("ROLE_REFERENCE", f"ref{k}") for k in range(2)]
        walks = {series_id: random_walk(rng, 60) for _, series_id in runs}

        def upload_messages():
            for role, series_id in runs:
                times, values = walks[series_id]
                header = upload_request(session=name)
                header.header.role = contract.enum_value("wasserwarp.v1.Role", role)
                header.header.series_id = series_id
                header.header.channels.append("x")
                yield header
                chunk = upload_request()
                chunk.chunk.times.extend(times)
                chunk.chunk.values.extend(values)
                yield chunk
                end = upload_request()
                end.end.expected_samples = len(times)
                yield end

        uploaded = upload(upload_messages(), timeout=30)
        self.assertEqual([run.series_id for run in uploaded.committed_runs],
                         [series_id for _, series_id in runs])
        self.assertEqual(uploaded.committed_samples, 4 * 60)

        validate_request, validate = contract.method(channel, SERVICE, "Validate")
        events = list(validate(validate_request(session=name), timeout=60))
        self.assertEqual([e.WhichOneof("event") for e in events][-1], "report")
        report = events[-1].report
        self.assertTrue(math.isfinite(report.distance))
        self.assertGreater(report.distance, 0.0)
        self.assertEqual(report.parameters.nu, 0.5)
        self.assertEqual([run.id for run in report.simulation], ["sim0", "sim1"])

        twed_request, twed = contract.method(channel, SERVICE, "ComputeTwed")
        request = twed_request()
        for side, series_id in ((request.a, "sim0"), (request.b, "ref0")):
            side.series_id = series_id
            side.channels.append("x")
            side.times.extend(walks[series_id][0])
            side.values.extend(walks[series_id][1])
        request.parameters.nu = 0.5
        request.parameters.p = 2.0
        distance = twed(request, timeout=30)
        self.assertTrue(math.isfinite(distance.twed))
        self.assertGreater(distance.twed, 0.0)
        self.assertGreater(distance.matches, 0)

        delete_request, delete = contract.method(channel, SERVICE, "DeleteSession")
        delete(delete_request(name=name), timeout=10)
        # Its validation is a record: the session stays as a tombstone until deleted too.
        self.assertEqual(get(get_request(name=name), timeout=10).session.state,
                         contract.enum_value("wasserwarp.v1.Session.State", "STATE_DELETED"))
        delete(delete_request(name=name), timeout=10)
        with self.assertRaises(grpc.RpcError) as raised:
            get(get_request(name=name), timeout=10)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.NOT_FOUND)


if __name__ == "__main__":
    harness.run(__doc__.splitlines()[0], sys.modules[__name__])
