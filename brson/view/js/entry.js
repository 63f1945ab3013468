// The one script the viewer page loads: three.js with the two add-ons it uses, as a classic
// script setting window.THREE (a classic script, not ES modules, so the --html export can
// inline it and open from file://, where module imports are refused).
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

window.THREE = { ...THREE, GLTFLoader, OrbitControls };
