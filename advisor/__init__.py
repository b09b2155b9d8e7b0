"""advisor: VM sizing and configuration advisor for VMware vSphere."""

__version__ = "0.1.0"
