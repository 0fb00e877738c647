package dev.deja.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** Version from the filtered {@code version.properties} in the jar. */
public final class VersionProvider implements CommandLine.IVersionProvider {
    private static volatile String version;

    public static String version() {
        String v = version;
        if (v == null) {
            Properties p = new Properties();
            try (InputStream in =
                    VersionProvider.class.getResourceAsStream("/dev/deja/version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // fall back below
            }
            v = p.getProperty("version", "dev");
            version = v;
        }
        return v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"deja " + version(), "Java " + System.getProperty("java.version")};
    }
}
