package smbdirect.rdma.verbs.internal;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;

/**
 * Guest side of {@code VerbsDisconnectLoopInVmScenario}: the contract test
 * {@code nothingArrivesAfterOnDisconnected} (a connection ended, late calls, then a second
 * connection to the same listener on the same providers) {@value #RUNS} times in a row over the
 * device the fixture names, each run with its own providers as in the suite. The scenario selects
 * this method alone ({@code --select-method}), so the contract tests the class inherits are not
 * discovered; selected as a class, it runs them too.
 */
@Tag("siw-vm-guest")
class VerbsDeviceDisconnectLoop extends VerbsDeviceContractTest {

    static final int RUNS = 100;

    @RepeatedTest(value = RUNS, name = "run {currentRepetition} of {totalRepetitions}")
    void nothingArrivesAfterOnDisconnectedAgainAndAgain() throws Exception {
        nothingArrivesAfterOnDisconnected();
    }
}
