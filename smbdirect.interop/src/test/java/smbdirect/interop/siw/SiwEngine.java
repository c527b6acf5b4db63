package smbdirect.interop.siw;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import smbdirect.api.CloseReason;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * The SMB Direct engine (defaults) over the software iWARP provider on 127.0.0.1, set for Linux siw
 * 6.1 in the VM: CRC on (siw follows a C=1 Request and accepts a C=1 Reply), and the first FPDU
 * toward siw as responder 500 ms after its MPA Reply (siw's accept race, PROOF.md d2). Closing shuts
 * the engine down, then the provider and the timer thread. Not thread-safe.
 */
final class SiwEngine implements AutoCloseable {

    private final ScheduledExecutorService timers;
    private final IwarpProvider provider;
    private final SmbDirectEngine engine;

    private SiwEngine(String name) throws IOException {
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-timers");
            t.setDaemon(true);
            return t;
        });
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").crc(true)
                .firstFpduDelayMillis(500).build();
        try {
            provider = IwarpProvider.open(name, settings);
        } catch (IOException | RuntimeException e) {
            timers.shutdownNow();
            throw e;
        }
        engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
    }

    /** Opens the provider (named {@code name}) and the engine over it. */
    static SiwEngine open(String name) throws IOException {
        return new SiwEngine(name);
    }

    SmbDirectEngine engine() {
        return engine;
    }

    @Override
    public void close() throws Exception {
        try {
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                    .get(Duration.ofSeconds(60).toSeconds(), TimeUnit.SECONDS);
        } finally {
            try {
                provider.close();
            } finally {
                timers.shutdownNow();
            }
        }
    }
}
