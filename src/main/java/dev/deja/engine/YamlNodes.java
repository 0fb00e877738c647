package dev.deja.engine;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * A YAML text as SnakeYAML's node tree, composed the way {@code new Yaml(options).compose(text)}
 * does (the same parser, resolver and options), without building the {@code Yaml} object: that
 * builds a constructor and a representer a node tree does not need, and the constructor's type
 * descriptions start the JDK's logging (java.util.logging's manager, the security properties) in a
 * run that logs nothing. A 50-line scan with a deja.yaml loaded 270 more classes than one without.
 */
public final class YamlNodes {
    private YamlNodes() {}

    /** The single document of {@code text}, null when it is empty; throws as SnakeYAML does. */
    public static Node compose(String text, LoaderOptions options) {
        return new Composer(
                        new ParserImpl(new StreamReader(text), options), new Resolver(), options)
                .getSingleNode();
    }
}
