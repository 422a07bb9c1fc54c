"""The service's generated gRPC stubs (validation_pb2, validation_pb2_grpc), written here by
setup.py's build step from proto/wasserwarp/v1/validation.proto."""
