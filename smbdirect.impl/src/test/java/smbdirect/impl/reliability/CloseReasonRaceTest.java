package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.api.CloseReason.Kind;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;

/**
 * The reason reported for a connection loss is its cause, not a side effect of it: when the peer
 * disconnects right after a message, the receive completion of that message is processed while the
 * endpoint is already disconnected, and re-posting the receive fails. That post failure must not
 * pre-empt the PEER disconnect the provider reports as its last callback.
 */
class CloseReasonRaceTest {

    @ParameterizedTest(name = "receiveCreditMax={0}")
    @ValueSource(ints = {1, 2, 255})
    @DisplayName("3.1.7.1: a peer disconnect right after a message is reported as PEER_DISCONNECT, once")
    void peerDisconnectAfterAMessage(int credits) throws Exception {
        TransportSettings s = TransportSettings.builder().receiveCreditMax(credits).sendCreditTarget(credits).build();
        try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, s)) {
            Rig.Peer subject = new Rig.Peer("subject");
            Rig.RawSession session = rig.rawServer(credits, subject);
            session.raw().send(Rig.dataTransfer(credits, 0, 100));
            rig.fabric.step(); // the Send executes: the receive completion is queued, not delivered
            session.raw().disconnect();
            rig.settle();
            assertEquals(1, subject.disconnects.size(), subject.disconnects.toString());
            assertEquals(Kind.PEER_DISCONNECT, subject.disconnects.get(0).kind(), subject.disconnects.get(0).toString());
            session.raw().close();
            rig.closeAndAssertNoLeaks();
        }
    }

    /**
     * A message whose Send completed successfully at the sender lies in the receiver's receive
     * buffers before the sender's graceful disconnect; the receiver hands it up before
     * {@code onDisconnected}, even when processing the first fragment's completion after the
     * endpoint went down had a credit-grant post refused and started the close. Deterministic over
     * every interleaving of the first 60 fabric steps.
     */
    @Test
    @DisplayName("3.1.7.1: messages placed in our receive buffers before the peer's disconnect are delivered")
    void messagesReceivedBeforeAPeerDisconnectAreDelivered() throws Exception {
        TransportSettings s = TransportSettings.builder().receiveCreditMax(4).sendCreditTarget(4).build();
        for (int n = 0; n < 60; n++) {
            try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, s)) {
                Rig.Peer[] p = rig.pair();
                AtomicInteger ok = new AtomicInteger();
                for (int i = 0; i < 20; i++) {
                    p[0].c().send(Rig.message(3000, i), (m, t) -> {
                        if (t == null) {
                            ok.incrementAndGet();
                        }
                    });
                }
                for (int i = 0; i < n; i++) {
                    rig.fabric.step();
                }
                p[0].c().close();
                rig.settle();
                assertEquals(ok.get(), p[1].received(), "after " + n + " steps: every message sent is received");
                rig.closeAndAssertNoLeaks();
            }
        }
    }
}
