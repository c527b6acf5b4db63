/**
 * The end of the build's test command ({@link smbdirect.testreport.TestReport}, the last module of
 * the reactor): reads every module's test reports and skip records from this build
 * ({@code ModuleReports}, {@code Outcome}), prints per
 * module what ran, failed and was skipped and why, and in strict mode fails the build on a skip not
 * listed as a fact in {@code known-skips.txt} ({@code KnownSkips}), on a test
 * class without a report, or on tests skipped altogether. Build tooling, not a product.
 */
package smbdirect.testreport;
