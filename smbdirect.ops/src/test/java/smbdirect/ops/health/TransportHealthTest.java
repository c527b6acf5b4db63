package smbdirect.ops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;

class TransportHealthTest {

    private static TransportDTO healthy() {
        TransportDTO dto = new TransportDTO();
        ProviderDTO p = new ProviderDTO();
        p.name = "mock";
        p.transportType = "INFINIBAND";
        p.selected = true;
        dto.providers = new ProviderDTO[] {p};
        ListenerDTO l = new ListenerDTO();
        l.name = "default";
        l.address = "10.0.0.1:445";
        l.state = "OPEN";
        dto.listeners = new ListenerDTO[] {l};
        dto.connections = new ConnectionDTO[0];
        return dto;
    }

    @Test
    void selectedProviderAndOpenListenerIsOk() {
        TransportHealth.Report r = new TransportHealth().evaluate(healthy());
        assertEquals(TransportHealth.Status.OK, r.status(), r.findings().toString());
    }

    @Test
    void noSelectedProviderIsCritical() {
        TransportDTO dto = healthy();
        dto.providers = new ProviderDTO[0];
        TransportHealth.Report r = new TransportHealth().evaluate(dto);
        assertEquals(TransportHealth.Status.CRITICAL, r.status());
        assertTrue(r.findings().get(0).startsWith("CRITICAL no RDMA provider selected"), r.findings().toString());
    }

    @Test
    void failedListenerIsCriticalAndWaitingListenerWarns() {
        TransportDTO dto = healthy();
        dto.listeners[0].state = "WAITING";
        dto.listeners[0].stateDetail = "no AcceptHandler service matches (x=y)";
        TransportHealth.Report r = new TransportHealth().evaluate(dto);
        assertEquals(TransportHealth.Status.WARN, r.status());
        assertTrue(r.findings().contains("WARN listener default 10.0.0.1:445 WAITING: no AcceptHandler service matches (x=y)"),
                r.findings().toString());
        dto.listeners[0].state = "FAILED";
        assertEquals(TransportHealth.Status.CRITICAL, new TransportHealth().evaluate(dto).status());
    }

    @Test
    void connectionWithoutSendCreditsAndQueuedMessagesIsStarved() {
        TransportDTO dto = healthy();
        ConnectionDTO c = new ConnectionDTO();
        c.id = 7;
        c.state = "ESTABLISHED";
        c.peerAddress = "10.0.0.2:445";
        c.sendCredits = 0;
        c.sendQueueDepth = 3;
        c.creditStalls = 12;
        dto.connections = new ConnectionDTO[] {c};
        TransportHealth.Report r = new TransportHealth().evaluate(dto);
        assertEquals(TransportHealth.Status.WARN, r.status());
        assertTrue(r.findings().stream().anyMatch(f -> f.startsWith("WARN connection 7 to 10.0.0.2:445 has had no Send Credits with 3 message(s) queued")),
                r.findings().toString());
        c.sendCredits = 1;
        assertEquals(TransportHealth.Status.OK, new TransportHealth().evaluate(dto).status());
    }

    @SuppressWarnings("removal") // the deprecated lastNegotiationFailure still works
    @Test
    void negotiationFailuresWarnOnlyWhileNew() {
        TransportHealth health = new TransportHealth();
        TransportDTO dto = healthy();
        dto.negotiationFailures = 2;
        dto.lastNegotiationFailure = "NEGOTIATION_FAILED R-3.1.5.6-01: MinVersion 0x0200";
        assertEquals(TransportHealth.Status.OK, health.evaluate(dto).status(), "failures before the first check");
        dto.negotiationFailures = 3;
        TransportHealth.Report r = health.evaluate(dto);
        assertEquals(TransportHealth.Status.WARN, r.status());
        assertTrue(r.findings().stream().anyMatch(f -> f.contains("1 negotiation failure(s) since the last check")
                && f.contains("MinVersion 0x0200")), r.findings().toString());
        assertEquals(TransportHealth.Status.OK, health.evaluate(dto).status(), "nothing new since");
    }

    @Test
    void eachSettingsFindingIsAWarnAfterTheTransportsOwn() {
        TransportHealth.Report ok = new TransportHealth().evaluate(healthy());
        assertEquals(ok, TransportHealth.withSettings(ok, List::of), "no finding: the report as it was");
        assertEquals(ok, TransportHealth.withSettings(ok, null), "no settings guard: the report as it was");

        TransportHealth.Report r = TransportHealth.withSettings(ok,
                () -> List.of("etc/smbdirect.transport.cfg: receiveCreditMax = x refused"));
        assertEquals(TransportHealth.Status.WARN, r.status());
        assertEquals(ok.findings().size() + 1, r.findings().size());
        assertEquals("WARN settings: etc/smbdirect.transport.cfg: receiveCreditMax = x refused",
                r.findings().get(r.findings().size() - 1));

        TransportDTO noProvider = healthy();
        noProvider.providers = new ProviderDTO[0];
        TransportHealth.Report critical = new TransportHealth().evaluate(noProvider);
        assertEquals(TransportHealth.Status.CRITICAL,
                TransportHealth.withSettings(critical, () -> List.of("x")).status(), "a WARN lowers no CRITICAL");
    }
}
