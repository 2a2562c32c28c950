"""Numeric kernels: exact re-implementations of the reference's library steps, with no knowledge of
corruption names. The corruptions (:mod:`corruptbench.corruptions`) and the torch backend
(:mod:`corruptbench.torch`) build their host-side coefficients from the same functions here.

* :mod:`.kernels` — the defocus disk, the plasma fractal
* :mod:`.gaussian` — scikit-image / SciPy ``gaussian`` (mode 'nearest'), compiled; the 1-D filter
  matrices with the border folded in (:mod:`.borders`)
* :mod:`.scipy_ndimage` — SciPy's ``map_coordinates`` and reflect-mode ``gaussian_filter``
* :mod:`.zoom` — the reference's ``clipped_zoom`` (``scipy.ndimage.zoom``), fused zoom blur
* :mod:`.pillow_resize` — Pillow's 8-bit BOX resampling
* :mod:`.opencv_warp` — OpenCV 3.4's ``warpAffine`` and ``warpPerspective``
* :mod:`.magick` — ImageMagick 6's ``MotionBlurImage``
* :mod:`.hsv` — scikit-image's RGB <-> HSV
* :mod:`.legacy_random` / :mod:`.legacy_random_kernels` — NumPy's legacy ``RandomState`` samplers
* :mod:`.weather_stages` — the weather corruptions' fused elementwise stages
* :mod:`.geometry` — torchvision 0.2.1's affine and the tilt homography (ImageNet-P)
* :mod:`.preprocess` — torchvision-0.2 preprocessing and make-c's per-profile preprocessing
"""
