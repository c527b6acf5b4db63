package smbdirect.interop.vm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;

/**
 * How a VM run ended.
 *
 * @param exitCode the guest command's exit status; 124 when the VM was killed at its time limit,
 *     125 when it stopped without printing the end marker
 * @param console every console line (kernel messages, init, the command's output, the guest
 *     kernel's log after the command)
 * @param wall wall-clock time from starting run.sh to its exit
 * @param consoleLog the file the console was also written to
 * @param kernel the guest kernel's version (the image's {@code kver}, such as {@code 6.1.0-56-amd64})
 */
public record SiwVmResult(int exitCode, List<String> console, Duration wall, Path consoleLog, String kernel) {

    /** run.sh's exit status when it killed the VM at the time limit. */
    public static final int TIMED_OUT = 124;
    /** run.sh's exit status when the VM stopped without the end marker. */
    public static final int NO_END_MARKER = 125;

    static final String BEGIN = "=== SIWVM OUTPUT BEGIN ===";
    static final String END = "=== SIWVM OUTPUT END rc=";
    /** Printed after the guest command, before the kernel's whole log ({@code dmesg -r}; SiwVm adds it). */
    static final String KERNEL_LOG = "=== SIWVM KERNEL LOG ===";

    /** A crash: an oops, a BUG, a general protection fault, a panic (at console log level 4 these reach the console). */
    private static final Pattern CRASH = Pattern.compile("BUG: |Oops: |general protection fault|Kernel panic");
    /**
     * A kernel line ({@code [ seconds]} on the console, {@code <level>[ seconds]} in the kernel's
     * log) that is a WARNING splat or a hung-task report (after {@code kernel.hung_task_timeout_secs}).
     */
    private static final Pattern WARNING = Pattern.compile(
            "^(<\\d+>)?\\[\\s*\\d+\\.\\d+\\] (WARNING: |INFO: task \\S+ blocked for more than )");

    public SiwVmResult {
        console = List.copyOf(console);
    }

    /**
     * The console lines between the begin and end markers: the command's output (kernel messages
     * printed meanwhile included, the host side's own lines from run.sh and qemu left out).
     */
    public List<String> output() {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : console) {
            if (line.contains(BEGIN)) {
                in = true;
            } else if (line.contains(END) || line.contains(KERNEL_LOG)) {
                break;
            } else if (in && !line.startsWith("[run.sh] ") && !line.startsWith("qemu-system-x86_64: ")) {
                out.add(line);
            }
        }
        return out;
    }

    /**
     * The guest kernel's whole log ({@code dmesg -r}: {@code <level>[seconds] message}), printed after
     * the command; empty when the command did not end (the VM was killed).
     */
    public List<String> kernelLog() {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : console) {
            if (line.contains(KERNEL_LOG)) {
                in = true;
            } else if (line.contains(END)) {
                break;
            } else if (in) {
                out.add(line);
            }
        }
        return out;
    }

    /**
     * Lines where the guest kernel reports a crash (an oops, a BUG, a general protection fault, a
     * panic), a WARNING splat or a hung task, on the console or in its log, except the warnings and
     * hung tasks known for this kernel not to be ours ({@code known-guest-kernel-warnings.txt});
     * empty for a healthy run.
     */
    public List<String> kernelFaults() {
        return kernelFaults(console, kernel);
    }

    /** The lines of {@code console}, from a guest running {@code kernel}, that are kernel faults. */
    static List<String> kernelFaults(List<String> console, String kernel) {
        return kernelFaults(console, kernel, KnownGuestWarnings::isKnown);
    }

    /** The same, with {@code known} telling a known warning (kernel, line) apart. */
    static List<String> kernelFaults(List<String> console, String kernel, BiPredicate<String, String> known) {
        Set<String> out = new LinkedHashSet<>();
        for (String l : console) {
            if (CRASH.matcher(l).find() || WARNING.matcher(l).find() && !known.test(kernel, l)) {
                out.add(l);
            }
        }
        return List.copyOf(out);
    }

    /**
     * The workqueue line of a crash report whose work item is cifs's SMB Direct disconnect work
     * ({@code fs/smb/client/smbdirect.c}, {@code smbd_disconnect_rdma_work}).
     */
    private static final Pattern CIFS_DISCONNECT_WORK = Pattern.compile(
            "Workqueue: smbd_\\S+ smbd_disconnect_rdma_work \\[cifs\\]");
    /** Lines of a crash report searched for its workqueue line (it follows the crash line within about ten). */
    private static final int REPORT_LINES = 40;

    /**
     * Whether {@code console} shows faults and every one is a crash in cifs's SMB Direct disconnect
     * work: the kernel's cifs client racing its own teardown (6.12.117: a NULL pointer dereference in
     * {@code rdma_disconnect}, {@code kernel BUG at drivers/infiniband/core/iwcm.c:341} in
     * {@code iw_cm_disconnect}, both from that work item at a disconnect or an unmount), not
     * something the bytes of a peer reach. A report is judged by the first workqueue line after its
     * crash line, before its end ({@code ---[ end trace}).
     */
    static boolean onlyCifsDisconnectWorkCrashes(List<String> console, String kernel) {
        List<String> faults = kernelFaults(console, kernel);
        if (faults.isEmpty()) {
            return false;
        }
        for (int i = 0; i < console.size(); i++) {
            String l = console.get(i);
            if (!faults.contains(l)) {
                continue;
            }
            if (!CRASH.matcher(l).find()) {
                return false; // a WARNING or a hung task: not such a crash
            }
            boolean named = false;
            for (int j = i; j < Math.min(console.size(), i + REPORT_LINES); j++) {
                String r = console.get(j);
                if (r.contains("Workqueue: ")) {
                    named = CIFS_DISCONNECT_WORK.matcher(r).find(); // the report's own work item
                    break;
                }
                if (r.contains("---[ end trace")) {
                    break;
                }
            }
            if (!named) {
                return false;
            }
        }
        return true;
    }

    /** The last {@code n} console lines, for failure messages. */
    public String tail(int n) {
        return SiwVmRun.tail(console, n) + "\n(console log: " + consoleLog + ")";
    }
}
