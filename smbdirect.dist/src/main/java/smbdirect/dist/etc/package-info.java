/**
 * The runtime's {@code etc/} directory, where every configuration is a file: prepared before
 * anything reads it, kept in step with every change made in the running runtime, and explained when
 * a file cannot be read.
 *
 * <ul>
 * <li>{@link smbdirect.dist.etc.EtcBootstrap}: the bundle's activator (start level 4); first-start
 * defaults, configurations whose file was deleted while stopped, the Web Console password
 * ({@link smbdirect.dist.etc.ConsolePassword}, handed to the banner once by
 * {@link smbdirect.dist.etc.ConsoleCredentials}), and the OSGi log bridged to SLF4J.</li>
 * <li>{@link smbdirect.dist.etc.ConfigurationFileWriter}: writes every configuration change back to its
 * file, atomically, through {@link smbdirect.dist.etc.ConfigurationFile} (FileInstall's own format and
 * library, so comments and order survive).</li>
 * <li>{@link smbdirect.dist.etc.ConfigurationFileFailure}: FileInstall's report of a file it could not
 * read, as one line naming the file, the line, the attribute and what stays in force.</li>
 * <li>{@link smbdirect.dist.etc.Etc}: where the directory is.</li>
 * </ul>
 */
package smbdirect.dist.etc;
