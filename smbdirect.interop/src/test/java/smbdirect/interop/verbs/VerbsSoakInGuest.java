package smbdirect.interop.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.perf.Perf;
import smbdirect.perf.PerfException;
import smbdirect.perf.PerfOptions;
import smbdirect.perf.PerfResult;
import smbdirect.perf.PerfServer;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * Guest side of the soak ({@code VerbsSoakInVmScenario}, {@code tools/siw-vm/soak.sh}): two guest
 * JVMs over the verbs provider (rdma-core) on one device, the engine and perf on top, in the role
 * {@code -Dsmbdirect.soak.role}, both talking to the guest shell through files in
 * {@code -Dsmbdirect.soak.dir} (each writes its pid into {@code ROLE.pid} first, for the shell's
 * {@code kill -9}):
 *
 * <ul>
 * <li>{@code server}: a perf server end on {@code -Dsmbdirect.soak.listen}; writes
 * {@code server.ready} once listening and serves until {@code server.stop} appears (the shell
 * writes it once the client has ended).</li>
 * <li>{@code client}: perf runs one after another until {@code stop} appears, each drawn at random
 * (seed {@code -Dsmbdirect.soak.seed}): Sends, pingpong, RDMA Writes or RDMA Reads; sizes from
 * 64 B to 1 MiB; 1 to 3 connections, each made and ended by the run. perf itself finds a lost or
 * corrupted message: the server confirms the count and bytes of every run, the CRC32C of the
 * buffer the RDMA Writes filled, and the client compares the buffer its RDMA Reads filled with the
 * server's pattern byte for byte. Each run prints one line, {@code SOAK RUN N VERDICT ...}:
 * {@code ok}; {@code faulted} (it failed, not for its data, while the shell's fault generation
 * in {@code faults} said a fault was under way or changed during the run); {@code FAILED} (it failed
 * with no fault under way); {@code CORRUPT} (perf found its data inconsistent: never accepted).
 * After a faulted run the next one starts half a second later (a killed server takes a while to
 * be back).
 * While {@code pause} exists the client starts no run and says so with {@code client.paused}, so
 * that the shell can compare the device's counts with their baseline; it honours a pause once it
 * has tried its first run (librdmacm opens the device's context with the first identifier and keeps
 * it until the process exits).</li>
 * </ul>
 */
@Tag(GuestJUnit.GUEST_TAG)
class VerbsSoakInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsSoakInGuest.class);
    private static final Path DIR = Paths.get(System.getProperty("smbdirect.soak.dir", "/tmp/soak"));
    private static final int[] SEND_SIZES = {64, 1024, 1364, 8192, 65536, 1 << 20};
    private static final int[] RDMA_SIZES = {4096, 65536, 1 << 20};

    @Test
    void runsUntilStoppedAndLosesOrCorruptsNothing() throws Exception {
        String role = System.getProperty("smbdirect.soak.role", "");
        Files.createDirectories(DIR);
        Files.writeString(DIR.resolve(role + ".pid"), Long.toString(ProcessHandle.current().pid()));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        RdmaProvider verbs = GuestVerbs.provider();
        SmbDirectEngine engine = new SmbDirectEngine(verbs, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        try {
            switch (role) {
                case "server" -> serve(engine);
                case "client" -> runs(engine);
                default -> throw new IllegalArgumentException("-Dsmbdirect.soak.role=server|client, got '" + role + "'");
            }
        } finally {
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "soak end")).toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            GuestVerbs.shutdown(verbs);
            timers.shutdownNow();
        }
    }

    private static void serve(SmbDirectEngine engine) throws Exception {
        PerfServer perf = new PerfServer(line -> LOG.info("{}", line));
        SmbDirectListener listener = Perf.serve(engine,
                PerfOptions.parse(List.of("--listen", System.getProperty("smbdirect.soak.listen"))), perf);
        Files.writeString(DIR.resolve("server.ready"), "ready");
        LOG.info("soak server on {}", listener.localAddress());
        while (!Files.exists(DIR.resolve("server.stop"))) {
            TimeUnit.MILLISECONDS.sleep(200); // the shell's stop file, not a protocol event
        }
        listener.close();
        System.out.println("SOAK SERVER END " + perf.summary());
    }

    /** The shell's fault generation: odd while a fault is under way. */
    private static long faultGeneration() {
        try {
            return Long.parseLong(Files.readString(DIR.resolve("faults"), StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private static void runs(SmbDirectEngine engine) throws Exception {
        long seed = Long.getLong("smbdirect.soak.seed", System.nanoTime());
        Random random = new Random(seed);
        String connect = System.getProperty("smbdirect.soak.connect");
        LOG.info("soak client against {}, seed {}", connect, seed);
        int n = 0;
        int ok = 0;
        List<String> bad = new ArrayList<>();
        while (!Files.exists(DIR.resolve("stop"))) {
            // librdmacm opens the device's context with the first identifier and keeps it until the
            // process exits: a pause is honoured once a run was tried, so every pause finds it open
            if (n > 0 && Files.exists(DIR.resolve("pause"))) {
                Files.writeString(DIR.resolve("client.paused"), "paused");
                while (Files.exists(DIR.resolve("pause")) && !Files.exists(DIR.resolve("stop"))) {
                    TimeUnit.MILLISECONDS.sleep(100); // the shell's pause file
                }
                Files.deleteIfExists(DIR.resolve("client.paused"));
                continue;
            }
            n++;
            List<String> args = draw(random, connect);
            long before = faultGeneration();
            long start = System.nanoTime();
            String verdict;
            String detail;
            try {
                PerfResult r = Perf.run(engine, PerfOptions.parse(args));
                verdict = "ok";
                detail = r.messages() + " " + r.unit() + ", " + r.bytes() + " bytes; " + r.confirmation();
                ok++;
            } catch (PerfException e) {
                long after = faultGeneration();
                String m = String.valueOf(e.getMessage());
                if (m.contains("inconsistent")) {
                    verdict = "CORRUPT";
                } else if (before != after || before % 2 == 1) {
                    verdict = "faulted";
                } else {
                    verdict = "FAILED";
                }
                detail = m;
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            String line = "SOAK RUN " + n + " " + verdict + " " + String.join(" ", args.subList(0, args.size() - 2))
                    + " (" + ms + " ms): " + detail;
            System.out.println(line);
            if (verdict.equals("FAILED") || verdict.equals("CORRUPT")) {
                bad.add(line);
            } else if (verdict.equals("faulted")) {
                TimeUnit.MILLISECONDS.sleep(500); // pacing the next try while the fault lasts
            }
        }
        System.out.println("SOAK CLIENT END runs=" + n + " ok=" + ok + " bad=" + bad.size() + " seed=" + seed);
        assertEquals(List.of(), bad, "runs that failed with no fault under way, or whose data perf found inconsistent");
        assertTrue(n > 0, "at least one run");
    }

    /** One run's perf options, drawn at random; the last two words are {@code --connect ADDRESS}. */
    private static List<String> draw(Random random, String connect) {
        List<String> a = new ArrayList<>();
        switch (random.nextInt(4)) {
            case 0 -> {
                int size = SEND_SIZES[random.nextInt(SEND_SIZES.length)];
                a.addAll(List.of("--direction", "send", "--size", Integer.toString(size), "--count",
                        Integer.toString(size >= 65536 ? 20 + random.nextInt(60) : 200 + random.nextInt(2000))));
            }
            case 1 -> a.addAll(List.of("--direction", "pingpong", "--size",
                    Integer.toString(SEND_SIZES[random.nextInt(4)]), "--depth", Integer.toString(1 + random.nextInt(8)),
                    "--count", Integer.toString(100 + random.nextInt(1000))));
            case 2, 3 -> {
                int size = RDMA_SIZES[random.nextInt(RDMA_SIZES.length)];
                a.addAll(List.of("--direction", random.nextBoolean() ? "write" : "read", "--size",
                        Integer.toString(size), "--count", Integer.toString(size >= 1 << 20 ? 10 + random.nextInt(40)
                                : 100 + random.nextInt(500))));
            }
            default -> throw new AssertionError();
        }
        a.addAll(List.of("--connections", Integer.toString(1 + random.nextInt(3)), "--timeout", "120s"));
        a.addAll(List.of("--connect", connect));
        return a;
    }
}
