/**
 * Gogo commands of the transport (scope {@code smbd}) and the test connections the operations
 * surfaces open. Gogo is an optional import: without it the commands are simply not offered.
 */
package smbdirect.ops.shell;
