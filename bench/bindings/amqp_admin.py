"""Deletes queues on an AMQP 0-9-1 broker: the rate driver's cleanup, in the standard
library only (the driver runs before any binding is importable). Just what queue.delete
needs: PLAIN login, one channel, no heartbeats."""

import socket
import struct
import urllib.parse

_FRAME_METHOD, _FRAME_END = 1, 0xCE


def _shortstr(text):
    data = text.encode()
    return struct.pack("B", len(data)) + data


def _longstr(data):
    return struct.pack(">I", len(data)) + data


class AmqpError(Exception):
    pass


class _Connection:
    def __init__(self, url, timeout):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "amqp":
            raise AmqpError(f"cannot clean up over {parts.scheme}:// (amqp:// only)")
        vhost = urllib.parse.unquote(parts.path[1:]) if len(parts.path) > 1 else "/"
        user = urllib.parse.unquote(parts.username or "guest")
        password = urllib.parse.unquote(parts.password or "guest")
        address = (parts.hostname or "localhost", parts.port or 5672)
        self._sock = socket.create_connection(address, timeout)
        self._buffer = b""
        self._sock.sendall(b"AMQP\x00\x00\x09\x01")
        self._expect(0, 10, 10)  # connection.start
        login = b"\0" + user.encode() + b"\0" + password.encode()
        self._send(0, 10, 11, struct.pack(">I", 0) + _shortstr("PLAIN") + _longstr(login)
                   + _shortstr("en_US"))
        tune = self._expect(0, 10, 30)
        channel_max, frame_max, _ = struct.unpack(">HIH", tune[:8])
        self._send(0, 10, 31, struct.pack(">HIH", channel_max, frame_max, 0))
        self._send(0, 10, 40, _shortstr(vhost) + _shortstr("") + b"\0")
        self._expect(0, 10, 41)
        self._send(1, 20, 10, _shortstr(""))
        self._expect(1, 20, 11)

    def _send(self, channel, class_id, method_id, arguments):
        payload = struct.pack(">HH", class_id, method_id) + arguments
        self._sock.sendall(struct.pack(">BHI", _FRAME_METHOD, channel, len(payload)) + payload
                           + bytes([_FRAME_END]))

    def _read(self, count):
        while len(self._buffer) < count:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise AmqpError("the broker closed the connection")
            self._buffer += chunk
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

    def _expect(self, channel, class_id, method_id):
        """The arguments of the next method frame, which must be class_id.method_id."""
        while True:
            kind, got_channel, size = struct.unpack(">BHI", self._read(7))
            payload = self._read(size + 1)[:-1]
            if kind == _FRAME_METHOD:
                break
        got = struct.unpack(">HH", payload[:4])
        if got in ((10, 50), (20, 40)):  # connection.close, channel.close
            code, length = struct.unpack(">HB", payload[4:7])
            raise AmqpError(f"{code} {payload[7:7 + length].decode(errors='replace')}")
        if (got_channel, got) != (channel, (class_id, method_id)):
            raise AmqpError(f"expected method {class_id}.{method_id}, got {got[0]}.{got[1]}")
        return payload[4:]

    def delete_queue(self, name):
        self._send(1, 50, 40, struct.pack(">H", 0) + _shortstr(name) + b"\0")
        self._expect(1, 50, 41)

    def close(self):
        try:
            self._send(0, 10, 50,
                       struct.pack(">H", 200) + _shortstr("bye") + struct.pack(">HH", 0, 0))
            self._expect(0, 10, 51)
        finally:
            self._sock.close()


def delete_queues(url, names, timeout=30):
    """Deletes each queue in names (a missing one is no error); raises AmqpError or OSError."""
    connection = _Connection(url, timeout)
    try:
        for name in names:
            connection.delete_queue(name)
    finally:
        connection.close()
