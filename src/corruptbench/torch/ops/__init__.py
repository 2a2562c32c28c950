"""Batched building blocks of the torch backend (device agnostic, float32 unless stated), one
module per CPU counterpart in :mod:`corruptbench.ops`.

Kernel / operator *construction* happens once on the host in float64 NumPy, from the same
functions the CPU library uses (cached), and is moved to each device once (cached per device:
:func:`~corruptbench.torch.ops.common.to_device`); *application* is batched tensor code:

* :mod:`.common` — host -> device caching, border padding by index folding
  (:func:`corruptbench.ops.borders.fold_index`: OpenCV ``BORDER_REFLECT_101``, SciPy ``'reflect'``,
  ``'nearest'``, for any image size), ``grid_sample`` coordinates;
* :mod:`.gaussian` — separable Gaussian filters as dense ``H x H`` / ``W x W`` matrices with the
  border folded in (:func:`corruptbench.ops.gaussian.gaussian_matrix`; two matmuls), or banded;
* :mod:`.kernels` — 2-D correlation (defocus disk) by FFT, the plasma fractal;
* :mod:`.magick` — ImageMagick's motion-blur taps, per sample;
* :mod:`.zoom` — SciPy ``zoom(order=1)`` centre zoom;
* :mod:`.pillow_resize` — Pillow's BOX resampling with its fixed-point coefficients;
* :mod:`.hsv` — scikit-image HSV;
* :mod:`.poisson` — Poisson counts of 8-bit images by alias tables;
* :mod:`.glass` — the glass-blur pixel copy;
* :mod:`.opencv_warp` / :mod:`.scipy_ndimage` — the elastic transform's two samplers.
"""
