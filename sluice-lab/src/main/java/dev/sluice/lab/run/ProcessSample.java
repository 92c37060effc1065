package dev.sluice.lab.run;

/**
 * One second of a process, as {@code pidstat -u -r -p PID 1} reports it.
 *
 * @param epochSecond the wall-clock second the sample closes (aligned with the load generator's counts)
 * @param cpuPercent CPU time (user + system) used during the second, in % of one core
 * @param rssMb resident set size at the end of the second, in MiB
 * @param cpuSeconds the process's total CPU seconds so far
 */
public record ProcessSample(long epochSecond, double cpuPercent, double rssMb, double cpuSeconds) {}
