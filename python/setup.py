"""Builds the wasserwarp package: its gRPC stubs are generated here from the service's proto,
so that the package always matches the contract it was built from.

protoc and grpc_python_plugin (Debian: protobuf-compiler, protobuf-compiler-grpc) are found on
PATH or named by the PROTOC and GRPC_PYTHON_PLUGIN environment variables; the proto directory
is ../proto beside this file, or WASSERWARP_PROTO_DIR.
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = "wasserwarp/v1/validation.proto"


def tool(variable: str, name: str, package: str) -> str:
    """The path of a code generator, from the environment or PATH."""
    path = os.environ.get(variable) or shutil.which(name)
    if not path:
        raise SystemExit(f"setup.py: no {name} on PATH (apt-get install {package}, "
                         f"or set {variable})")
    return path


class BuildWithStubs(build_py):
    """build_py that also writes wasserwarp/v1/validation_pb2{,_grpc}.py into the build."""

    def run(self) -> None:
        super().run()
        proto_dir = os.environ.get("WASSERWARP_PROTO_DIR",
                                   os.path.join(HERE, os.pardir, "proto"))
        if not os.path.isfile(os.path.join(proto_dir, PROTO)):
            raise SystemExit(f"setup.py: no {PROTO} under {proto_dir!r} "
                             "(set WASSERWARP_PROTO_DIR)")
        protoc = tool("PROTOC", "protoc", "protobuf-compiler")
        plugin = tool("GRPC_PYTHON_PLUGIN", "grpc_python_plugin", "protobuf-compiler-grpc")
        self.mkpath(self.build_lib)
        subprocess.run([protoc, f"--python_out={self.build_lib}", f"--grpc_out={self.build_lib}",
                        f"--plugin=protoc-gen-grpc={plugin}", "-I", proto_dir, PROTO],
                       check=True)


setup(
    name="wasserwarp",
    version="0.1.0",
    description="Python client of the wasserwarp validation service, for test benches",
    packages=["wasserwarp", "wasserwarp.v1"],
    python_requires=">=3.9",
    install_requires=["grpcio", "protobuf", "numpy"],
    extras_require={"pandas": ["pandas"]},
    cmdclass={"build_py": BuildWithStubs},
)
