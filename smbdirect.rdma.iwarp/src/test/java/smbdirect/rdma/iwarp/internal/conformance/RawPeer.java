package smbdirect.rdma.iwarp.internal.conformance;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import smbdirect.rdma.iwarp.internal.wire.Hex;

/**
 * A hand-driven iWARP peer over a blocking socket for conformance tests: writes exactly the bytes a
 * test gives (MPA frames and FPDUs built here independently of the provider's codec, from the
 * layouts of RFC 5044 §4.1, §7.1, RFC 5041 §4, RFC 5040 §4) and reads what the provider sends.
 * Every read is bounded by a timeout.
 */
public final class RawPeer implements AutoCloseable {

    public static final int TIMEOUT_MILLIS = 10_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    public boolean crc;

    private RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(TIMEOUT_MILLIS);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    public static RawPeer connect(InetSocketAddress address) throws IOException {
        Socket s = new Socket();
        s.connect(address, TIMEOUT_MILLIS);
        return new RawPeer(s);
    }

    /** Accepts one connection on {@code server}. */
    public static RawPeer accept(ServerSocket server) throws IOException {
        server.setSoTimeout(TIMEOUT_MILLIS);
        return new RawPeer(server.accept());
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    public void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    public void sendHex(String hex) throws IOException {
        send(Hex.bytes(hex));
    }

    /** Writes one byte per write call, so the provider sees the stream in the smallest pieces. */
    /** Sends {@code bytes} in pieces of 1 to {@code maxPiece} bytes, each a write of its own. */
    public void sendInPieces(byte[] bytes, java.util.Random random, int maxPiece) throws IOException {
        for (int at = 0; at < bytes.length;) {
            int n = Math.min(bytes.length - at, 1 + random.nextInt(maxPiece));
            send(java.util.Arrays.copyOfRange(bytes, at, at + n));
            at += n;
        }
    }

    public void sendByteByByte(byte[] bytes) throws IOException {
        for (byte b : bytes) {
            out.write(b);
            out.flush();
        }
    }

    public byte[] read(int n) throws IOException {
        byte[] b = new byte[n];
        int at = 0;
        while (at < n) {
            int r = in.read(b, at, n - at);
            if (r < 0) {
                throw new EOFException("EOF after " + at + " of " + n + " bytes");
            }
            at += r;
        }
        return b;
    }

    /** Whether bytes wait to be read, without blocking. */
    public boolean hasInput() throws IOException {
        return in.available() > 0;
    }

    /** Whether the provider closed the connection (EOF or reset) within the timeout; fails if data arrives. */
    public boolean closedByPeer() throws IOException {
        try {
            int b = in.read();
            if (b >= 0) {
                throw new AssertionError("expected the connection to end, got byte 0x" + Integer.toHexString(b));
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    /** Reads nothing for {@code millis}: true when no byte arrived (and the connection is still open). */
    public boolean silentFor(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            int b = in.read();
            if (b < 0) {
                return false;
            }
            throw new AssertionError("expected silence, got byte 0x" + Integer.toHexString(b));
        } catch (SocketTimeoutException e) {
            return true;
        } finally {
            socket.setSoTimeout(TIMEOUT_MILLIS);
        }
    }

    // ------------------------------------------------------------------ MPA frames (RFC 5044 §7.1)

    public static final String KEY_REQ = "MPA ID Req Frame";
    public static final String KEY_REP = "MPA ID Rep Frame";

    /** Key, flags, revision, PD_Length and the private data (the RFC 6581 word is part of {@code pd} here). */
    public static byte[] frame(String key, int flags, int revision, byte[] pd) {
        ByteBuffer b = ByteBuffer.allocate(20 + pd.length);
        b.put(key.getBytes(StandardCharsets.US_ASCII)).put((byte) flags).put((byte) revision)
                .putShort((short) pd.length).put(pd);
        return b.array();
    }

    /** The RFC 6581 word: A/B bits and IRD, C/D bits and ORD. */
    public static byte[] word(int irdWord, int ordWord) {
        return ByteBuffer.allocate(4).putShort((short) irdWord).putShort((short) ordWord).array();
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    /** A received MPA Request or Reply. */
    public record Frame(String key, int flags, int revision, byte[] pd) {
        public int word(int i) {
            return ByteBuffer.wrap(pd).getShort(i * 2) & 0xFFFF;
        }

        public byte[] pdAfter(int skip) {
            byte[] rest = new byte[pd.length - skip];
            System.arraycopy(pd, skip, rest, 0, rest.length);
            return rest;
        }
    }

    public Frame readFrame() throws IOException {
        byte[] h = read(20);
        int pd = ((h[18] & 0xFF) << 8) | (h[19] & 0xFF);
        return new Frame(new String(h, 0, 16, StandardCharsets.US_ASCII), h[16] & 0xFF, h[17] & 0xFF, read(pd));
    }

    // ------------------------------------------------------------------ FPDUs (RFC 5044 §4.1, §6.1)

    /** Frames a ULPDU: length, ULPDU, PAD, CRC32C little-endian (or zero when {@link #crc} is off). */
    public byte[] fpdu(byte[] ulpdu) {
        int pad = -(ulpdu.length + 2) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
        b.putShort((short) ulpdu.length).put(ulpdu).position(2 + ulpdu.length + pad);
        int value = 0;
        if (crc) {
            CRC32C c = new CRC32C();
            c.update(b.array(), 0, 2 + ulpdu.length + pad);
            value = (int) c.getValue();
        }
        b.putInt(Integer.reverseBytes(value));
        return b.array();
    }

    /** An untagged ULPDU (RFC 5041 §4.3): control bytes, RsvdULP/Invalidate STag, QN, MSN, MO, payload. */
    public static byte[] untagged(int ddpControl, int rdmapControl, int invalidateStag, int qn, int msn, int mo, byte[] payload) {
        return ByteBuffer.allocate(18 + payload.length).put((byte) ddpControl).put((byte) rdmapControl)
                .putInt(invalidateStag).putInt(qn).putInt(msn).putInt(mo).put(payload).array();
    }

    /** A Send (opcode 3) segment, DV 1, RV 1. */
    public static byte[] send(int msn, int mo, boolean last, byte[] payload) {
        return untagged(last ? 0x41 : 0x01, 0x43, 0, 0, msn, mo, payload);
    }

    /** A tagged ULPDU (RFC 5041 §4.2). */
    public static byte[] tagged(int ddpControl, int rdmapControl, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(14 + payload.length).put((byte) ddpControl).put((byte) rdmapControl).putInt(stag)
                .putLong(to).put(payload).array();
    }

    /** An RDMA Read Request (RFC 5040 §4.4) on QN 1. */
    public static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        ByteBuffer body = ByteBuffer.allocate(28).putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag)
                .putLong(sourceTo);
        return untagged(0x41, 0x41, 0, 1, msn, 0, body.array());
    }

    /** A received FPDU: the ULPDU after its CRC (if on) was checked. */
    public byte[] readFpdu() throws IOException {
        byte[] len = read(2);
        int ulpdu = ((len[0] & 0xFF) << 8) | (len[1] & 0xFF);
        byte[] body = read(ulpdu);
        int pad = -(ulpdu + 2) & 3;
        byte[] padBytes = read(pad);
        byte[] trailer = read(4);
        int got = ByteBuffer.wrap(trailer).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
        if (crc) {
            CRC32C c = new CRC32C();
            c.update(len);
            c.update(body);
            c.update(padBytes);
            if (got != (int) c.getValue()) {
                throw new AssertionError("bad CRC 0x" + Integer.toHexString(got) + " on FPDU "
                        + Hex.of(ByteBuffer.wrap(body), 0, body.length));
            }
        } else if (got != 0) {
            throw new AssertionError("CRC off, but the CRC field is 0x" + Integer.toHexString(got));
        }
        for (byte p : padBytes) {
            if (p != 0) {
                throw new AssertionError("non-zero PAD");
            }
        }
        return body;
    }

    /** Resets the connection (SO_LINGER 0: the close sends an RST instead of a FIN). */
    public void resetNow() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /** Closes the connection (the provider sees the FIN). */
    public void hangUp() throws IOException {
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
