/**
 * The Web Console status page (label {@code smbdirect}): {@code StatusPage}, independent of the
 * servlet API, served as a Jakarta Servlet plugin in the Felix Web Console 5 and as a javax servlet
 * plugin in Karaf's Web Console ({@code StatusPlugins} registers the one the console takes).
 */
package smbdirect.ops.console;
