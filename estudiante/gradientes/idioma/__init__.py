"""JupyterLab in Spanish, complete: the language pack ``es`` of the course.

The official pack (``jupyterlab-language-pack-es-ES``) translates only part of JupyterLab 4. ``python -m
gradientes.lab_setup`` writes here, in ``locale/es/LC_MESSAGES/``, its catalogs completed with the course's
translations (``assets/jupyterlab/traducciones.json``); ``pyproject.toml`` registers this folder with
JupyterLab as the language ``es``, which ``assets/jupyterlab/overrides.json`` chooses.
"""
