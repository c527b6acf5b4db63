package smbdirect.ops.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;

class DtoTextTest {

    private static ConnectionDTO connection(long id, String state) {
        ConnectionDTO c = new ConnectionDTO();
        c.id = id;
        c.role = "ACTIVE";
        c.state = state;
        c.localAddress = "10.0.0.1:49152";
        c.peerAddress = "10.0.0.1:445";
        c.maxSendSize = 1364;
        c.maxReceiveSize = 8192;
        c.receiveCreditMax = 100;
        c.messagesSent = 5;
        c.creditStalls = 2;
        return c;
    }

    @Test
    void connectionsTableListsLiveAndRecentlyClosedWithReasons() {
        TransportDTO dto = new TransportDTO();
        dto.connections = new ConnectionDTO[] {connection(3, "ESTABLISHED")};
        ConnectionDTO closed = connection(1, "CLOSED");
        closed.closeReason = "PEER_DISCONNECT: the peer disconnected";
        dto.recentlyClosed = new ConnectionDTO[] {closed};
        String text = DtoText.connections(dto);
        String[] lines = text.split("\n");
        assertTrue(lines[0].startsWith("   ID ROLE"), text);
        assertTrue(lines[1].matches("\\s+3 ACTIVE\\s+ESTABLISHED\\s+10\\.0\\.0\\.1:49152\\s+10\\.0\\.0\\.1:445\\s+1364\\s+8192\\s+100\\s+5\\s+0\\s+2"),
                lines[1]);
        assertEquals("recently closed:", lines[2]);
        assertTrue(lines[3].endsWith("PEER_DISCONNECT: the peer disconnected"), lines[3]);
    }

    @Test
    void providersTableShowsAProvidersOwnSettingsAndStatisticsUnderItsRow() {
        TransportDTO dto = new TransportDTO();
        ProviderDTO iwarp = new ProviderDTO();
        iwarp.name = "iwarp";
        iwarp.transportType = "IWARP";
        iwarp.ranking = 50;
        iwarp.capabilities = "send queue 1024 work requests";
        iwarp.settings = "listens only on 127.0.0.1:5445";
        iwarp.statistics = "TCP connections 0 of at most 1,024";
        ProviderDTO mock = new ProviderDTO();
        mock.name = "mock";
        mock.transportType = "INFINIBAND";
        mock.selected = true;
        mock.capabilities = "send queue 4096 work requests";
        dto.providers = new ProviderDTO[] {mock, iwarp};
        String[] lines = DtoText.providers(dto).split("\n");
        assertEquals(5, lines.length, String.join("\n", lines));
        assertTrue(lines[1].startsWith("mock "), lines[1]);
        assertTrue(lines[2].startsWith("iwarp "), lines[2]);
        assertEquals("           settings:   listens only on 127.0.0.1:5445", lines[3]);
        assertEquals("           statistics: TCP connections 0 of at most 1,024", lines[4]);
    }

    @Test
    void listenersTableIsFollowedByEachListenersEventsNewestFirst() {
        ListenerEventDTO refused = new ListenerEventDTO();
        refused.kind = "REFUSED_CAP";
        refused.peerAddress = "10.0.0.2:50001";
        refused.provider = "mock";
        refused.reasonKind = "RESOURCE_LIMIT";
        refused.detail = "maxConnectionsPerListener=1 reached";
        refused.timestampMillis = 2000;
        ListenerEventDTO accepted = new ListenerEventDTO();
        accepted.kind = "ACCEPTED";
        accepted.peerAddress = "10.0.0.2:50000";
        accepted.provider = "mock";
        accepted.connectionId = 4;
        accepted.timestampMillis = 1000;
        ListenerDTO l = new ListenerDTO();
        l.name = "smb";
        l.address = "10.0.0.1:445";
        l.state = "OPEN";
        l.events = new ListenerEventDTO[] {refused, accepted};
        TransportDTO dto = new TransportDTO();
        dto.listeners = new ListenerDTO[] {l};
        String[] lines = DtoText.listeners(dto).split("\n");
        assertEquals("events of smb 10.0.0.1:445, newest first:", lines[2]);
        assertEquals("  1970-01-01T00:00:02Z REFUSED_CAP         peer 10.0.0.2:50001 on mock: RESOURCE_LIMIT: "
                + "maxConnectionsPerListener=1 reached", lines[3]);
        assertEquals("  1970-01-01T00:00:01Z ACCEPTED            peer 10.0.0.2:50000 on mock connection 4", lines[4]);
    }

    @Test
    void aDeclinedConnectionIsCountedAndItsEventSaysDeclinedWithTheReason() {
        ListenerEventDTO declined = new ListenerEventDTO();
        declined.kind = "DECLINED";
        declined.peerAddress = "10.0.0.2:50002";
        declined.provider = "mock";
        declined.connectionId = 7;
        declined.reasonKind = "LOCAL_CLOSE";
        declined.detail = "the accept handler declined the connection (returned null)";
        declined.timestampMillis = 3000;
        ListenerDTO l = new ListenerDTO();
        l.address = "10.0.0.1:445";
        l.state = "OPEN";
        l.connectRequests = 3;
        l.accepted = 1;
        l.declined = 2;
        l.events = new ListenerEventDTO[] {declined};
        TransportDTO dto = new TransportDTO();
        dto.listeners = new ListenerDTO[] {l};
        String[] lines = DtoText.listeners(dto).split("\n");
        assertTrue(lines[0].matches(".*REQUESTS\\s+ACCEPTED\\s+DECLINED\\s+REFUSED.*"), lines[0]);
        assertTrue(lines[1].matches(".*OPEN\\s+3\\s+1\\s+2\\s+0\\s+0\\s+0\\s*"), lines[1]);
        assertEquals("  1970-01-01T00:00:03Z DECLINED            peer 10.0.0.2:50002 on mock connection 7: LOCAL_CLOSE: "
                + "the accept handler declined the connection (returned null)", lines[3]);
    }

    @Test
    void emptySnapshotSaysSo() {
        TransportDTO dto = new TransportDTO();
        assertTrue(DtoText.providers(dto).contains("(no RDMA provider"));
        assertTrue(DtoText.listeners(dto).contains("(no listener)"));
        assertTrue(DtoText.connections(dto).contains("(no live connection)"));
    }

    @Test
    void findLooksAtLiveThenClosedConnections() {
        TransportDTO dto = new TransportDTO();
        ConnectionDTO live = connection(3, "ESTABLISHED");
        ConnectionDTO closed = connection(1, "CLOSED");
        dto.connections = new ConnectionDTO[] {live};
        dto.recentlyClosed = new ConnectionDTO[] {closed};
        assertSame(live, DtoText.find(dto, 3));
        assertSame(closed, DtoText.find(dto, 1));
        assertNull(DtoText.find(dto, 2));
    }

    @Test
    void listenerAddressesBecomeConnectTargetsWithWildcardAsLoopback() throws Exception {
        assertEquals(new InetSocketAddress(InetAddress.getByName("10.0.0.1"), 445), TestConnections.toAddress("10.0.0.1:445"));
        assertEquals(new InetSocketAddress(InetAddress.getByName("10.0.0.1"), 445), TestConnections.toAddress("/10.0.0.1:445"));
        assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), 5445), TestConnections.toAddress("0.0.0.0:5445"));
    }
}
