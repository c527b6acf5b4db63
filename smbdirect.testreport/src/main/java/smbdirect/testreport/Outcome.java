package smbdirect.testreport;

/**
 * One test, or a whole test class, as this build's reports tell it.
 *
 * @param module the module whose reports tell it
 * @param className the test class
 * @param test the test's name as the report gives it; empty for a whole class that ran no test
 * @param kind passed, failed (or in error) or skipped
 * @param reason why it failed or was skipped (one line); empty when it passed
 */
record Outcome(String module, String className, String test, Kind kind, String reason) {

    /** How it went. */
    enum Kind {
        PASSED, FAILED, SKIPPED
    }

    /** What known-skips.txt patterns are matched against: {@code module:class} or {@code module:class#test}. */
    String key() {
        return module + ":" + className + (test.isEmpty() ? "" : "#" + test);
    }

    /** The class and test for a person. */
    String where() {
        return className + (test.isEmpty() ? " (the whole class)" : "#" + test);
    }
}
