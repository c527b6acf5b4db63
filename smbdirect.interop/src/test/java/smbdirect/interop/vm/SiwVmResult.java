package smbdirect.interop.vm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a VM run ended.
 *
 * @param exitCode the guest command's exit status; 124 when the VM was killed at its time limit,
 *     125 when it stopped without printing the end marker
 * @param console every console line (kernel messages, init, the command's output)
 * @param wall wall-clock time from starting run.sh to its exit
 * @param consoleLog the file the console was also written to
 */
public record SiwVmResult(int exitCode, List<String> console, Duration wall, Path consoleLog) {

    /** run.sh's exit status when it killed the VM at the time limit. */
    public static final int TIMED_OUT = 124;
    /** run.sh's exit status when the VM stopped without the end marker. */
    public static final int NO_END_MARKER = 125;

    static final String BEGIN = "=== SIWVM OUTPUT BEGIN ===";
    static final String END = "=== SIWVM OUTPUT END rc=";

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
            } else if (line.contains(END)) {
                break;
            } else if (in && !line.startsWith("[run.sh] ") && !line.startsWith("qemu-system-x86_64: ")) {
                out.add(line);
            }
        }
        return out;
    }

    /**
     * Console lines where the guest kernel reports a crash (an oops, a BUG, a general protection
     * fault, a panic); empty for a healthy run.
     */
    public List<String> kernelFaults() {
        return kernelFaults(console);
    }

    /** The lines of {@code console} where the guest kernel reports a crash. */
    static List<String> kernelFaults(List<String> console) {
        return console.stream().filter(l -> l.contains("BUG: ") || l.contains("Oops: ")
                || l.contains("general protection fault") || l.contains("Kernel panic")).toList();
    }

    /** The last {@code n} console lines, for failure messages. */
    public String tail(int n) {
        return SiwVmRun.tail(console, n) + "\n(console log: " + consoleLog + ")";
    }
}
