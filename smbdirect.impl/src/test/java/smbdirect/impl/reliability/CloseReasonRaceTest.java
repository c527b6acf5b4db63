package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
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
}
