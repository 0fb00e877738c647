package dev.deja.helm;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import com.marcnuri.helm.jni.NativeLibrary;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * The child process that renders a chart with Helm for the JVM (helm-java), when there is no {@code
 * helm} on the PATH: {@code java -cp deja.jar dev.deja.helm.RenderMain CHART N VALUES... SETS...}.
 * It prints the rendered manifests on stdout and exits 0, or prints Helm's message on stderr and
 * exits 1; the parent bounds its time and memory ({@link BoundedProcess}).
 */
public final class RenderMain {
    private RenderMain() {}

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        // helm-java fetches its native library from the network when none is on the class path:
        // never
        if (!ServiceLoader.load(NativeLibrary.class).iterator().hasNext()) {
            System.err.println(
                    "this build of deja carries no Helm library for "
                            + System.getProperty("os.name")
                            + "/"
                            + System.getProperty("os.arch")
                            + ": put helm on the PATH");
            System.exit(3);
        }
        try {
            TemplateCommand t =
                    new Helm(Path.of(args[0]))
                            .template()
                            .withName(HelmRenderer.RELEASE)
                            .withNamespace(HelmRenderer.NAMESPACE);
            int n = Integer.parseInt(args[1]);
            for (int i = 0; i < n; i++) {
                t = t.withValuesFile(Path.of(args[2 + i]));
            }
            for (int i = 2 + n; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                t = t.set(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            String rendered = t.call();
            out.print(rendered);
            out.flush();
            System.exit(out.checkError() ? 4 : 0);
        } catch (RuntimeException | LinkageError e) {
            System.err.println(String.valueOf(e.getMessage()));
            System.exit(e instanceof IllegalStateException ? 1 : 3);
        }
    }
}
