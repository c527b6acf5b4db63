package smbdirect.impl.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import smbdirect.impl.engine.TimerScheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;

/**
 * The transport as the runtime builds it (the real engine, default settings, every provider
 * allowed) with the mock fabrics its providers come from, all closed after each test: the
 * transport shut down first, then the fabrics, then the timer. Register it as an instance field
 * with {@code @RegisterExtension}.
 */
final class TransportOverMock implements AfterEachCallback {

    private final TimerScheduler timer = new TimerScheduler();
    private final MultiProviderTransport transport;
    private final List<MockFabric> fabrics = new ArrayList<>();

    TransportOverMock() {
        this(TransportSettings.DEFAULTS);
    }

    /** The transport with {@code settings}. */
    TransportOverMock(TransportSettings settings) {
        transport = new MultiProviderTransport(EngineFactory::create, timer, settings, ProviderFilter.ANY);
    }

    /** A new fabric, closed after the transport. */
    MockFabric fabric(String name, DeliveryMode mode) {
        MockFabric f = MockFabric.builder().name(name).mode(mode).build();
        fabrics.add(f);
        return f;
    }

    TimerScheduler timer() {
        return timer;
    }

    MultiProviderTransport transport() {
        return transport;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        transport.shutdown().toCompletableFuture()
                .get(10 + transport.settings().drainTimeout().toSeconds(), TimeUnit.SECONDS);
        for (MockFabric f : fabrics) {
            f.close();
        }
        timer.close();
    }
}
