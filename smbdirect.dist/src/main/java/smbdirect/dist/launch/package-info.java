/**
 * Before the OSGi launcher starts: {@link smbdirect.dist.launch.ApplianceHome}, the executable jar's
 * launcher agent, lays out the home directory as Karaf does ({@code etc/} for the configuration
 * files FileInstall watches, {@code data/} for the framework state) and makes those paths absolute
 * under {@code -Dsmbdirect.home}.
 */
package smbdirect.dist.launch;
