package smbdirect.rdma.iwarp.internal.wireshark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.SmbDirectException;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.tck.LoopbackCapture;
import smbdirect.testsupport.Pdml;

/**
 * Wireshark as the independent judge of what the iWARP provider puts on the wire (iwarp.md §3.7):
 * two SMB Direct engine sessions run over two pairs of iWARP providers while dumpcap captures the
 * loopback interface, and tshark's dissection of the capture must decode every byte as MPA
 * (RFC 5044), DDP/RDMAP (RFC 5041, RFC 5040) and SMB Direct ([MS-SMBD]) with nothing malformed and
 * no expert warning, and every decoded field must equal what the sessions sent: the MPA Request and
 * Reply with the negotiated IRD/ORD, good CRCs (or zero CRC fields without CRC), Send MSNs up by one
 * per message, the RDMA Read Request naming the registration the client advertised, the Read
 * Responses going to its sink, the RDMA Writes to the advertised STag and offsets, the Send with
 * Invalidate naming the advertised STag, and the Negotiate and Data Transfer fields equal to the
 * engines' settings and messages ({@link WireJudge}).
 *
 * <p>The first session uses port 5445 ([MS-SMBD] 2.1; Wireshark gives it to another dissector unless
 * the heuristics go first) with CRC and the default FPDU size (the path's MSS: 65480 bytes on Linux
 * loopback) on the client, 1460-byte FPDUs on the server; the second a free port without CRC, with
 * 256-byte FPDUs on the client (every Send and Read Response in many DDP segments) and one I/O
 * thread on the server. Both listen on a random address of 127.0.0.0/8, so that port 5445 is free
 * there whatever else runs on the machine. Skipped, with one line, where dumpcap may not capture.
 */
class WiresharkJudgeTest {

    private static final int RDMA_SIZE = 16 * 1024;

    @Test
    void wiresharkDecodesEveryByteAndEachFieldEqualsWhatTheSessionsSent() throws Exception {
        TransportSettings client = TransportSettings.builder().sendCreditTarget(100).maxSendSize(1300)
                .maxReceiveSize(4096).maxFragmentedRecvSize(262144).maxReadWriteSize(1 << 20).inboundReadDepth(4)
                .outboundReadDepth(6).build();
        TransportSettings server = TransportSettings.builder().sendCreditTarget(200).maxSendSize(2000)
                .maxReceiveSize(1500).maxFragmentedRecvSize(524288).maxReadWriteSize(2 << 20).inboundReadDepth(8)
                .outboundReadDepth(3).build();
        SecureRandom random = new SecureRandom();
        Path file = Path.of("target", "wireshark", "judge.pcap");
        List<JudgedSession> sessions = new ArrayList<>();
        for (int attempt = 0; sessions.isEmpty(); attempt++) {
            InetAddress host = InetAddress.getByAddress(new byte[] {127, (byte) (1 + random.nextInt(254)),
                (byte) random.nextInt(256), (byte) (1 + random.nextInt(254))});
            IwarpSettings base = IwarpSettings.builder().listenAddresses(host.getHostAddress()).build();
            JudgedSession crc = new JudgedSession("port-5445-crc", base, base.toBuilder().maxFpduSize(1460).build(), client,
                    server, RDMA_SIZE);
            JudgedSession plain = new JudgedSession("free-port-no-crc",
                    base.toBuilder().crc(false).maxFpduSize(256).build(), base.toBuilder().crc(false).ioThreads(1).build(),
                    client, server, RDMA_SIZE);
            try (LoopbackCapture capture = LoopbackCapture.start("host " + host.getHostAddress(), file)) {
                try {
                    crc.run(new InetSocketAddress(host, IwarpSettings.SMB_DIRECT_PORT));
                } catch (SmbDirectException e) {
                    if (!causedBy(e, BindException.class)) {
                        throw e;
                    }
                    assertTrue(attempt < 5, "port 5445 taken on 5 random loopback addresses: " + e);
                    continue; // port 5445 is taken on this address: try another one
                }
                plain.run(new InetSocketAddress(host, 0));
                capture.close();
                assertTrue(capture.complete(), "the capture is incomplete: " + capture.droppedPackets()
                        + " packets dropped, or the end marker never reached the file");
                List<Pdml.Packet> reassembled = Pdml.read(capture.pdml("reassembled", "--disable-heuristic",
                        "rpcrdma_iwarp"));
                List<Pdml.Packet> segments = Pdml.read(capture.pdml("segments", "--disable-heuristic",
                        "rpcrdma_iwarp", "-o",
                        "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE", "-o",
                        "smb_direct.reassemble_smb_direct:FALSE"));
                sessions.add(crc);
                sessions.add(plain);
                List<String> problems = new ArrayList<>();
                for (JudgedSession s : sessions) {
                    problems.addAll(WireJudge.judge(s, reassembled, segments));
                }
                assertEquals(List.of(), problems, "Wireshark's verdict on " + capture.file());
            }
        }
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
