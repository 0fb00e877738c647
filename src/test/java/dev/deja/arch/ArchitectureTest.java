package dev.deja.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The one-way flow of deja, checked on the compiled main classes: sources (every piece of I/O)
 * build the model, pure rules read it, reports write what the rules found. The picture is in
 * CONTRIBUTING.md ("Where code goes"); {@link ArchitectureViolationTest} shows each rule failing on
 * a class that breaks it.
 */
class ArchitectureTest {
    static final JavaClasses MAIN =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("dev.deja");

    /** The layers, bottom up; a layer may use the ones below it, never one above. */
    static ArchRule layers() {
        return layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("Core")
                .definedBy("dev.deja.engine..")
                .layer("Model")
                .definedBy("dev.deja.model..")
                .layer("Rules")
                .definedBy("dev.deja.rules..")
                .layer("Sources")
                .definedBy("dev.deja.source..")
                .layer("Snapshot")
                .definedBy("dev.deja.snapshot..")
                .layer("Collect")
                .definedBy("dev.deja.collect..")
                .layer("Reports")
                .definedBy("dev.deja.report")
                .layer("Sinks")
                .definedBy("dev.deja.report.sink..")
                .layer("Prove")
                .definedBy("dev.deja.prove..")
                .layer("Cli")
                .definedBy("dev.deja", "dev.deja.cli..")
                .whereLayer("Cli")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("Prove")
                .mayOnlyBeAccessedByLayers("Cli")
                .whereLayer("Sinks")
                .mayOnlyBeAccessedByLayers("Cli", "Prove")
                .whereLayer("Reports")
                .mayOnlyBeAccessedByLayers("Sinks", "Prove", "Cli")
                .whereLayer("Collect")
                .mayOnlyBeAccessedByLayers("Sinks", "Prove", "Cli")
                .whereLayer("Snapshot")
                .mayOnlyBeAccessedByLayers("Collect", "Sinks", "Prove", "Cli")
                .whereLayer("Sources")
                .mayOnlyBeAccessedByLayers("Snapshot", "Collect", "Sinks", "Prove", "Cli")
                .whereLayer("Rules")
                .mayOnlyBeAccessedByLayers("Prove", "Cli")
                .whereLayer("Model")
                .mayOnlyBeAccessedByLayers(
                        "Rules",
                        "Sources",
                        "Snapshot",
                        "Collect",
                        "Reports",
                        "Sinks",
                        "Prove",
                        "Cli");
    }

    /** Rules and the model they read are pure: no files, network, processes or API clients. */
    static ArchRule pure(String layer) {
        DescribedPredicate<JavaClass> io =
                JavaClass.Predicates.resideInAnyPackage(
                                "java.io..",
                                "java.nio.file..",
                                "java.nio.channels..",
                                "java.net..",
                                "java.net.http..",
                                "io.fabric8..",
                                "software.amazon..",
                                "com.marcnuri..")
                        // in-memory text (a StringReader for a YAML parser) is not I/O
                        .and(
                                DescribedPredicate.not(
                                        JavaClass.Predicates.simpleNameStartingWith("String")))
                        .or(JavaClass.Predicates.equivalentTo(ProcessBuilder.class))
                        .or(JavaClass.Predicates.equivalentTo(Runtime.class));
        return noClasses()
                .that()
                .resideInAPackage(layer)
                .should()
                .dependOnClassesThat(io.as("files, network, processes or API clients"))
                .because(
                        "a "
                                + layer
                                + " class reads the snapshot and returns values; I/O belongs in"
                                + " dev.deja.source");
    }

    /** No two packages depend on each other, directly or through others. */
    static ArchRule noCycles() {
        return slices().matching("dev.deja.(**)").should().beFreeOfCycles();
    }

    @Test
    void layersAreOneWay() {
        layers().check(MAIN);
    }

    @Test
    void rulesDoNoIo() {
        pure("dev.deja.rules..").check(MAIN);
    }

    @Test
    void theModelDoesNoIo() {
        pure("dev.deja.model..").check(MAIN);
    }

    @Test
    void packagesFormNoCycle() {
        noCycles().check(MAIN);
    }
}
