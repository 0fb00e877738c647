# deja container image: build the shaded jar with Maven, run it on a JRE as a non-root user.
# Works with a read-only root filesystem: the JVM writes no perf data (-XX:-UsePerfData) and deja writes only
# where its outputs are pointed (-o / --output, e.g. an emptyDir mounted at /reports). JVM options as in ./deja
# (docker/entrypoint.sh): C1 only, the serial collector and a young generation of half the heap (a scan is short and
# allocates in bursts), transparent huge pages where the kernel offers them.

# ---- build stage
FROM maven:3.9.11-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
# the compiler's JVM options (Error Prone runs inside javac and needs jdk.compiler's internals opened)
COPY .mvn ./.mvn
RUN mvn -B -q dependency:go-offline
COPY rules ./rules
COPY packaging/AwsSlim.java ./packaging/
COPY packaging/aws ./packaging/aws
COPY src/main ./src/main
RUN mvn -B -q -Dmaven.test.skip=true package

# ---- runtime stage
FROM eclipse-temurin:17.0.16_8-jre AS runtime
LABEL org.opencontainers.image.title="deja" \
      org.opencontainers.image.description="Scans Kubernetes, HAProxy and AWS load balancers for the risk patterns of real incidents"
COPY --from=build /src/target/deja.jar /opt/deja/deja.jar
# Helm for the JVM's native library (chart rendering without helm): beside the jar, where deja looks for it
COPY --from=build /src/target/helm-java /opt/deja/helm-java
# AppCDS, as ./deja does: a class-data-sharing archive of the classes a scan loads, written here by this image's own
# JVM (an archive is only used by the JVM build that wrote it, with the same jar: same size and time) from the
# launcher's training run (dev.deja.cli.CdsTraining: the bundled examples, a small Kubernetes API it serves on the
# loopback interface, the AWS client pointed at a closed port); the examples are deleted after (their 136 KB layer stays). Same JIT and GC options
# as the ENTRYPOINT. The build fails if no archive was written.
COPY examples /tmp/deja-training
RUN AWS_ACCESS_KEY_ID=train AWS_SECRET_ACCESS_KEY=train AWS_REGION=eu-west-2 AWS_MAX_ATTEMPTS=1 \
      java -XX:ArchiveClassesAtExit=/opt/deja/deja.jsa -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:NewRatio=1 \
      -Djava.io.tmpdir=/tmp -cp /opt/deja/deja.jar dev.deja.cli.CdsTraining /tmp/deja-training >/dev/null 2>&1 || true; \
    rm -rf /tmp/deja-training && test -s /opt/deja/deja.jsa && chmod 444 /opt/deja/deja.jsa
# The entrypoint script: the JVM options of ./deja (transparent huge pages where the kernel offers them on request,
# as the launcher does), DEJA_JAVA_OPTS, then exec java (PID 1, gets the signals). Executable in the repository,
# and COPY keeps the mode.
COPY docker/entrypoint.sh /opt/deja/entrypoint.sh
USER 10001:10001
WORKDIR /opt/deja
ENTRYPOINT ["/opt/deja/entrypoint.sh"]
CMD ["--help"]
