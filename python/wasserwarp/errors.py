"""The one exception the client raises for what the service refused or could not do."""

from __future__ import annotations

import grpc


class WasserwarpError(Exception):
    """A failed call: the gRPC status code and the service's message, unchanged.

    `code` is a grpc.StatusCode (e.g. NOT_FOUND for an unknown session, INVALID_ARGUMENT for a
    bad run, naming the run and sample), `details` the message the service sent.
    """

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> "WasserwarpError":
        """The exception for an error raised by a grpc stub."""
        return cls(error.code(), error.details() or "")
