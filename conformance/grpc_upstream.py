#!/usr/bin/env python3
"""The grpcurl check's upstream: a real gRPC server (Python grpcio, plaintext h2c) with server
reflection, its service described by a descriptor built here (no protoc, no generated code):

    package sluice.conformance;
    message Hello { string name = 1; int32 count = 2; }
    message Reply { string message = 1; int32 n = 2; }
    service Greeter {
      rpc Say (Hello) returns (Reply);             // "hello " + name
      rpc Count (Hello) returns (stream Reply);    // count replies, n = 1 … count
    }

Binds port 0 on 127.0.0.1, keeps it bound, and prints "PORT <n>" once serving."""
import sys
from concurrent import futures

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection

PACKAGE = "sluice.conformance"
SERVICE = PACKAGE + ".Greeter"


def _descriptor():
    f = descriptor_pb2.FileDescriptorProto(name="sluice_conformance.proto", package=PACKAGE, syntax="proto3")
    string, int32 = descriptor_pb2.FieldDescriptorProto.TYPE_STRING, descriptor_pb2.FieldDescriptorProto.TYPE_INT32
    optional = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
    for name, fields in (("Hello", (("name", string), ("count", int32))), ("Reply", (("message", string), ("n", int32)))):
        m = f.message_type.add(name=name)
        for number, (field, kind) in enumerate(fields, start=1):
            m.field.add(name=field, number=number, type=kind, label=optional, json_name=field)
    s = f.service.add(name="Greeter")
    s.method.add(name="Say", input_type="." + PACKAGE + ".Hello", output_type="." + PACKAGE + ".Reply")
    s.method.add(name="Count", input_type="." + PACKAGE + ".Hello", output_type="." + PACKAGE + ".Reply",
                 server_streaming=True)
    pool = descriptor_pool.Default()
    pool.Add(f)
    hello = message_factory.GetMessageClass(pool.FindMessageTypeByName(PACKAGE + ".Hello"))
    reply = message_factory.GetMessageClass(pool.FindMessageTypeByName(PACKAGE + ".Reply"))
    return hello, reply


def main():
    hello, reply = _descriptor()

    def say(request, context):
        return reply(message="hello " + request.name, n=1)

    def count(request, context):
        for n in range(1, request.count + 1):
            yield reply(message=request.name, n=n)

    handlers = {
        "Say": grpc.unary_unary_rpc_method_handler(
            say, request_deserializer=hello.FromString, response_serializer=reply.SerializeToString),
        "Count": grpc.unary_stream_rpc_method_handler(
            count, request_deserializer=hello.FromString, response_serializer=reply.SerializeToString),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    reflection.enable_server_reflection((SERVICE, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print("PORT %d" % port, flush=True)
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
