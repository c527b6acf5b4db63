package smbdirect.interop.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.junit.jupiter.api.Tag;

import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * Inside the guest ({@link VerbsContractInVmTest} starts it): the RDMA provider SPI contract suite,
 * in full, over the verbs provider on the guest's real RDMA device (siw0 or rxe0), client and
 * server provider each with its own CM event channel, on the guest's one address.
 */
@Tag(GuestJUnit.GUEST_TAG)
class VerbsContractInGuest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new Fixture();
    }

    /** Two verbs providers on the guest's device. */
    static final class Fixture extends RdmaTckFixture {
        private final RdmaProvider client = GuestVerbs.provider();
        private final RdmaProvider server = GuestVerbs.provider();

        @Override
        public RdmaProvider clientProvider() {
            return client;
        }

        @Override
        public RdmaProvider serverProvider() {
            return server;
        }

        @Override
        public InetSocketAddress serverAddress(int port) {
            return new InetSocketAddress(GuestVerbs.GUEST_ADDRESS, port);
        }

        /** iWARP (siw) completes a Send or Write once TCP took it; RoCE (rxe) once the peer acknowledged it. */
        @Override
        public boolean sendsAndWritesCompleteOnAcknowledgement() {
            return client.transportType() != TransportType.IWARP;
        }

        /** rxe's InfiniBand CM pads private data to its message's field; siw's MPA does not. */
        @Override
        public boolean padsPrivateData() {
            return client.transportType() != TransportType.IWARP;
        }

        /** The guest is one emulated CPU under TCG: a JVM there is ten times slower or more. */
        @Override
        public Duration timeout() {
            return Duration.ofSeconds(60);
        }

        @Override
        public void close() {
            GuestVerbs.shutdown(client);
            GuestVerbs.shutdown(server);
        }
    }
}
