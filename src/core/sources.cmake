vpk_lib_sources(cpu.c errf.c lines.c num.c isa.c impl.c registry.c qsbr.c version.c)
