package smbdirect.interop.vm;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a scenario against the siw VM so that a rare crash of the guest kernel does not fail the
 * build while a crash our bytes cause still does.
 *
 * <p>A guest kernel fault (an oops, a BUG, a general protection fault, a panic on the console) is
 * Linux's bug, not ours: once, on a fresh image's first boot, siw crashed in
 * {@code siw_cm_work_handler} during an rping inside the guest, with no host peer involved. So when
 * the VMs a scenario booted show a kernel fault, the scenario runs once more, with a loud WARN
 * naming the fault and the kept console log. When the second attempt is clean its result counts;
 * when it faults again (as a fault our bytes provoke would), the scenario fails with both consoles
 * named. One kind of crash gets a third attempt: where every fault of both attempts is a crash in
 * cifs's SMB Direct disconnect work ({@link SiwVmResult#onlyCifsDisconnectWorkCrashes}), the guest's
 * own SMB client racing its teardown at an unmount or a disconnect (6.12.117+deb12-amd64, in
 * {@code CifsMountsFileServerOverVerbsInVmTest}: 3 boots of about 25 since 2026-11-28, a NULL
 * pointer dereference in {@code rdma_disconnect} twice on rxe0, {@code kernel BUG at
 * drivers/infiniband/core/iwcm.c:341} once on siw0; the second attempt passed each time). A
 * scenario that fails without a kernel fault fails at once: no retry hides our errors. Static
 * methods, thread-safe.
 */
public final class SiwVmAttempts {

    private static final Logger LOG = LoggerFactory.getLogger(SiwVmAttempts.class);

    private SiwVmAttempts() {
    }

    /** A scenario: boots its VMs through {@code boots}, drives the host side, returns its outcome. */
    @FunctionalInterface
    public interface Scenario<T> {
        T run(Boots boots) throws Exception;
    }

    /** Starts VMs for one attempt and remembers them. Not thread-safe. */
    public static final class Boots {
        private final SiwVm vm;
        private final List<SiwVmRun> runs = new ArrayList<>();

        Boots(SiwVm vm) {
            this.vm = vm;
        }

        /** {@link SiwVm#start(SiwVmSpec)}, remembered for the fault check. */
        public SiwVmRun start(SiwVmSpec spec) throws java.io.IOException, InterruptedException {
            SiwVmRun r = vm.start(spec);
            runs.add(r);
            return r;
        }

        /** After {@link #closeAndCollectFaults}: whether every VM that faulted showed only cifs's disconnect-work crashes. */
        boolean onlyCifsDisconnectWorkCrashes() {
            return runs.stream().allMatch(r -> r.kernelFaults().isEmpty() || r.onlyCifsDisconnectWorkCrashes());
        }

        /** Closes every VM of the attempt (idempotent) and returns the kernel faults their consoles show. */
        List<String> closeAndCollectFaults() {
            List<String> faults = new ArrayList<>();
            for (SiwVmRun r : runs) {
                r.close();
                for (String f : r.kernelFaults()) {
                    faults.add(f.strip() + " (console " + r.consoleLog() + ")");
                }
            }
            return faults;
        }
    }

    /** One attempt's outcome. */
    private record Attempt<T>(T value, Exception failure, AssertionError assertion, List<String> faults,
            boolean cifsCrashesOnly) {

        T get() throws Exception {
            if (assertion != null) {
                throw assertion;
            }
            if (failure != null) {
                throw failure;
            }
            return value;
        }
    }

    /**
     * Runs {@code scenario}, once more when the guest kernel faulted during the first attempt, and a
     * third time when both attempts faulted only with crashes in cifs's disconnect work.
     *
     * @param what names the scenario in the log
     * @return the outcome of the attempt without a guest kernel fault
     * @throws AssertionError when the attempts made all show a guest kernel fault (with their consoles named)
     * @throws Exception whatever the counted attempt threw
     */
    public static <T> T run(SiwVm vm, String what, Scenario<T> scenario) throws Exception {
        List<Attempt<T>> made = new ArrayList<>();
        while (true) {
            Attempt<T> a = attempt(vm, scenario);
            made.add(a);
            if (a.faults().isEmpty() || a.failure() instanceof InterruptedException) {
                if (made.size() > 1) {
                    LOG.warn("!!! {} passed on attempt {} after a guest kernel fault in each before: {}", what, made.size(),
                            made.subList(0, made.size() - 1).stream().map(Attempt::faults).toList());
                }
                return a.get();
            }
            int allowed = made.stream().allMatch(Attempt::cifsCrashesOnly) ? 3 : 2;
            if (made.size() >= allowed) {
                break;
            }
            LOG.warn("!!! GUEST KERNEL FAULT during {} (attempt {} of {}): {}. This is a bug of the guest's Linux unless it"
                    + " recurs; the console is kept. Running the scenario once more.", what, made.size(), allowed,
                    a.faults());
        }
        AssertionError e = new AssertionError("the guest kernel faulted in all " + made.size() + " attempts of " + what
                + " (a fault that recurs is taken as caused by what the host sent): "
                + made.stream().map(Attempt::faults).toList());
        for (Attempt<T> a : made) {
            for (Throwable t : new Throwable[] {a.failure(), a.assertion()}) {
                if (t != null) {
                    e.addSuppressed(t);
                }
            }
        }
        throw e;
    }

    private static <T> Attempt<T> attempt(SiwVm vm, Scenario<T> scenario) {
        Boots boots = new Boots(vm);
        T value = null;
        Exception failure = null;
        AssertionError assertion = null;
        try {
            value = scenario.run(boots);
        } catch (Exception e) {
            failure = e;
        } catch (AssertionError e) {
            assertion = e;
        }
        // closed here as well as by the scenario: the check needs complete consoles
        List<String> faults = boots.closeAndCollectFaults();
        return new Attempt<>(value, failure, assertion, faults,
                !faults.isEmpty() && boots.onlyCifsDisconnectWorkCrashes());
    }
}
