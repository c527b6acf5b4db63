package smbdirect.interop.verbs;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicNode;

import smbdirect.interop.vm.GuestJUnit;
import smbdirect.interop.vm.GuestReport;
import smbdirect.interop.vm.SiwVm;
import smbdirect.interop.vm.SiwVmAttempts;
import smbdirect.interop.vm.SiwVmResult;
import smbdirect.interop.vm.SiwVmRun;
import smbdirect.interop.vm.SiwVmSpec;

/**
 * One VM boot for a host test class of the verbs provider in the guest: the guest's Java runtime
 * and class path unpacked, then one phase per RDMA device, siw0 (soft-iWARP) first, then rxe0
 * (soft-RoCE v2), each made the only device on eth0 by {@code rdma-dev} before its guest commands
 * run. Static methods; the result is immutable.
 */
final class VerbsInVm {

    /** The guest's RDMA devices, in the order the phases run. */
    enum Device {
        SIW("siw", "siw0"), RXE("rxe", "rxe0");

        final String kind;
        final String name;

        Device(String kind, String name) {
            this.kind = kind;
            this.name = name;
        }
    }

    private VerbsInVm() {
    }

    /**
     * Boots the VM once and runs, per device, the guest shell lines {@code phase} gives for it.
     *
     * @param name names the console log
     * @param timeout the whole VM run's bound
     * @param phase guest shell lines for one device (its launches' commands and reports)
     */
    static Booted boot(String name, Duration timeout, List<Device> devices, Function<Device, String> phase)
            throws Exception {
        return boot(name, "", timeout, devices, phase);
    }

    /**
     * As {@link #boot(String, Duration, List, Function)}, on the image of the kernel series {@code kernel}
     * ({@link SiwVm#require(String)}; empty: the default image).
     */
    static Booted boot(String name, String kernel, Duration timeout, List<Device> devices,
            Function<Device, String> phase) throws Exception {
        SiwVm vm = SiwVm.require(kernel);
        GuestJUnit junit = GuestJUnit.require();
        String kver = Files.readString(vm.image().resolve("kver"), StandardCharsets.US_ASCII).strip();
        List<String> lines = new ArrayList<>(List.of(junit.setup()));
        for (Device d : devices) {
            lines.add("echo '=== PHASE " + d.name + " ==='");
            lines.add("rdma-dev " + d.kind + " && rdma link show " + d.name + "/1 || echo 'RDMA-DEV " + d.name
                    + " FAILED'");
            lines.add(phase.apply(d));
        }
        SiwVmSpec spec = junit.prepare(SiwVmSpec.command(String.join("\n", lines)).rdma(devices.get(0).kind)
                .timeout(timeout).name(name));
        SiwVmResult result = SiwVmAttempts.run(vm, name, boots -> {
            try (SiwVmRun run = boots.start(spec)) {
                return run.awaitExit();
            }
        });
        return new Booted(result, kver, junit.javaVersion());
    }

    /**
     * A finished VM run.
     *
     * @param kver the guest kernel (the image's {@code kver})
     * @param javaVersion the guest JVM's version
     */
    record Booted(SiwVmResult result, String kver, String javaVersion) {

        /** The report of guest launch {@code launch}. */
        GuestReport report(String launch) {
            return GuestReport.of(launch, result);
        }

        /** The tests of guest launch {@code launch}, named after {@code device} and the guest's kernel. */
        Stream<DynamicNode> tests(String launch, Device device) {
            return report(launch).tests(device.name + " " + kver + ": ");
        }
    }

    /** {@code launch} on {@code device} over the rdma-core backend (no fallback to another backend). */
    static GuestJUnit.Launch verbs(GuestJUnit.Launch launch, Device device) {
        return launch.property("smbdirect.verbs.device", device.name).property("smbdirect.verbs.backend", "rdma-core");
    }

    /** Guest shell lines that wait (at most {@code seconds}) until an RDMA CM listener is on {@code port}. */
    static String awaitCmListener(int port, int seconds) {
        return "i=0; until rdma res show cm_id | grep -q 'state LISTEN.*:" + port + " '; do i=$((i+1)); [ $i -gt "
                + seconds * 5 + " ] && { echo 'NO CM LISTENER ON " + port + "'; break; }; sleep 0.2; done";
    }
}
