package smbdirect.rdma.verbs.internal;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Guest side of {@code VerbsDisconnectLoopInVmScenario}: the contract test
 * {@code nothingArrivesAfterOnDisconnected} (a connection ended, late calls, then a second
 * connection to the same listener on the same providers) {@value #RUNS} times in a row over the
 * device the fixture names, each run with its own providers as in the suite. Every other contract
 * test this class inherits is left out.
 */
@Tag("siw-vm-guest")
@ExtendWith(VerbsDeviceDisconnectLoop.OnlyTheLoop.class)
class VerbsDeviceDisconnectLoop extends VerbsDeviceContractTest {

    static final int RUNS = 100;
    private static final String LOOP = "nothingArrivesAfterOnDisconnectedAgainAndAgain";

    @RepeatedTest(value = RUNS, name = "run {currentRepetition} of {totalRepetitions}")
    void nothingArrivesAfterOnDisconnectedAgainAndAgain() throws Exception {
        nothingArrivesAfterOnDisconnected();
    }

    /** Runs the loop only. */
    static final class OnlyTheLoop implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getTestMethod().map(m -> m.getName().equals(LOOP)
                    ? ConditionEvaluationResult.enabled("the loop")
                    : ConditionEvaluationResult.disabled("only the loop runs in this class"))
                    .orElse(ConditionEvaluationResult.enabled("the class"));
        }
    }
}
