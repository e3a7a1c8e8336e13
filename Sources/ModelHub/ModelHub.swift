/// ModelHub: the self-hosted model-hosting server (work in progress).
public enum ModelHub {}
