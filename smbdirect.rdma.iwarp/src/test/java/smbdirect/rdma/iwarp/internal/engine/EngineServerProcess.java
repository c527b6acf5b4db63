package smbdirect.rdma.iwarp.internal.engine;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.tck.EngineScenario;

/**
 * The server side of {@link IwarpTwoProcessEngineTest}, run in its own JVM: an SMB Direct engine on
 * an iWARP provider listening on a free loopback port, serving one {@link EngineScenario} client.
 * Protocol on stdout: {@code LISTENING <port>}, then {@code SERVER OK} or {@code SERVER FAILED <why>};
 * exit status 0 or 1. Gives up after the time limit given as the first argument (seconds).
 */
public final class EngineServerProcess {

    private EngineServerProcess() {
    }

    public static void main(String[] args) {
        PrintStream out = System.out;
        long limit = args.length > 0 ? Long.parseLong(args[0]) : 60;
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        int status = 1;
        try (IwarpProvider provider = IwarpProvider.open("process-server",
                IwarpSettings.builder().listenAddresses("127.0.0.1").build())) {
            SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            EngineScenario scenario = IwarpTwoProcessEngineTest.SCENARIO;
            EngineScenario.EchoServer server = scenario.server();
            SmbDirectListener listener = engine.listen(new InetSocketAddress("127.0.0.1", 0), c -> server);
            out.println("LISTENING " + listener.localAddress().getPort());
            out.flush();
            server.closed().get(limit, TimeUnit.SECONDS);
            scenario.checkServer(server);
            scenario.get(listener.close());
            scenario.get(engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "server process ends")));
            out.println("SERVER OK");
            status = 0;
        } catch (Throwable t) {
            out.println("SERVER FAILED " + t);
        } finally {
            timers.shutdownNow();
            out.flush();
        }
        System.exit(status);
    }
}
