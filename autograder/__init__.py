"""Gradientes en PyTorch: comprobaciones para las lecciones y herramientas del instructor."""
