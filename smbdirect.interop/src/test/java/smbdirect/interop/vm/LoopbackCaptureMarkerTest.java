package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.rdma.tck.LoopbackCapture;

/**
 * The datagrams a capture sends itself to know that the file is complete ({@link LoopbackCapture#sync()})
 * are never taken for a protocol: their payload is random, and once a marker began like an RTCP
 * Goodbye, which Wireshark's RTCP heuristic took for a malformed packet and a judge reported as a
 * problem of the iWARP traffic around it.
 */
class LoopbackCaptureMarkerTest {

    /** The marker that was decoded as a malformed RTCP Goodbye (RTP version 2, packet type 203). */
    private static final byte[] RTCP_LOOKALIKE = {(byte) 0xa5, (byte) 0xcb, (byte) 0xf9, 0x5b, (byte) 0xe5, 0x6b,
            (byte) 0xfa, 0x15, 0x78, (byte) 0xe1, (byte) 0xd2, (byte) 0xf0, (byte) 0xcc, 0x11, 0x2e, (byte) 0x91};

    @TempDir
    Path dir;

    @Test
    void aMarkerThatLooksLikeRtcpIsDecodedAsDataAndNotAsAMalformedPacket() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        int port;
        LoopbackCapture capture;
        try (LoopbackCapture c = LoopbackCapture.start("tcp port 9", dir.resolve("marker.pcap"));
                DatagramSocket s = new DatagramSocket(new InetSocketAddress(loopback, 0))) {
            capture = c;
            port = c.markerPort();
            s.send(new DatagramPacket(RTCP_LOOKALIKE, RTCP_LOOKALIKE.length, new InetSocketAddress(loopback, port)));
        }
        String captured = capture.tshark("-Y", "udp.dstport == " + port + " && data.data == "
                + "a5:cb:f9:5b:e5:6b:fa:15:78:e1:d2:f0:cc:11:2e:91", "-T", "fields", "-e", "frame.number");
        assertEquals(1, captured.lines().count(), "the datagram is in the capture, dissected as data: " + captured);
        assertEquals("", capture.tshark("-Y", "_ws.malformed || rtcp", "-T", "fields", "-e", "frame.number"),
                "no frame of the capture is malformed or RTCP");
        assertEquals("", LoopbackCapture.ofFile(capture.file(), port).tshark("-Y", "_ws.malformed || rtcp", "-T",
                "fields", "-e", "frame.number"), "nor in the file decoded again with the markers' port");
    }
}
